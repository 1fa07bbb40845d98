// The layering check (.dependency-cruiser.cjs) fires on what it forbids: a tree of tiny modules with
// an upward import, a cycle and a file on no floor is checked with the project's own config.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DEPCRUISE = join(ROOT, 'node_modules/.bin/depcruise');
const dir = mkdtempSync(join(tmpdir(), 'teamline-layers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Writes the files of a small tree (path → source) with the project's layering config.
function makeTree(files: Record<string, string>): string {
  const tree = mkdtempSync(join(dir, 'tree-'));
  copyFileSync(join(ROOT, '.dependency-cruiser.cjs'), join(tree, '.dependency-cruiser.cjs'));
  writeFileSync(join(tree, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), source);
  }
  return tree;
}

// The rules the check names (none: it passed).
function check(tree: string): string[] {
  let stdout: string;
  try {
    stdout = execFileSync(DEPCRUISE, ['--config', '.dependency-cruiser.cjs', '--output-type', 'json', 'src'], { cwd: tree, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    stdout = (error as { stdout: string }).stdout;
  }
  const out = JSON.parse(stdout) as { summary: { violations: Array<{ rule: { name: string } }> } };
  return [...new Set(out.summary.violations.map((v) => v.rule.name))].sort();
}

describe('the layering check', () => {
  it('passes a tree whose imports all run downward', () => {
    const tree = makeTree({
      'src/commands/status.ts': "import { fold } from '../log/fold.js';\nexport const status = fold;\n",
      'src/log/fold.ts': "import { clean } from '../sys/text.js';\nexport const fold = clean;\n",
      'src/sys/text.ts': 'export const clean = 1;\n',
    });
    expect(check(tree)).toEqual([]);
  });

  it('names an upward import by the floor it starts from', () => {
    const tree = makeTree({
      'src/sys/text.ts': "import { status } from '../commands/status.js';\nexport const clean = status;\n",
      'src/commands/status.ts': 'export const status = 1;\n',
    });
    expect(check(tree)).toEqual(['no-upward-from-sys']);
  });

  it("names a runtime folder that imports one above it, though no file-level cycle closes (the old ring of run and attempt)", () => {
    const tree = makeTree({
      'src/attempt/attempt.ts': "import { start } from '../run/start.js';\nexport const attempt = start;\n",
      'src/run/start.ts': "import { log } from '../session/event-log.js';\nexport const start = log;\n",
      'src/session/event-log.ts': 'export const log = 1;\n',
    });
    expect(check(tree)).toEqual(['no-upward-from-attempt']);
  });

  it('names a cycle, also of type imports on one floor', () => {
    const tree = makeTree({
      'src/log/fold.ts': "import type { Event } from './read.js';\nexport interface View { last?: Event }\n",
      'src/log/read.ts': "import type { View } from './fold.js';\nexport interface Event { view?: View }\n",
    });
    expect(check(tree)).toEqual(['no-circular']);
  });

  it('names a source file on no floor', () => {
    const tree = makeTree({ 'src/misc/thing.ts': "import { clean } from '../sys/text.js';\nexport const thing = clean;\n", 'src/sys/text.ts': 'export const clean = 1;\n' });
    expect(check(tree)).toEqual(['no-unknown-folder']);
  });

  it('holds for the project itself', () => {
    const out = execFileSync(DEPCRUISE, ['--config', '.dependency-cruiser.cjs', '--output-type', 'err', 'src', 'machines', 'workers', 'handoffs', 'config'], { cwd: ROOT, encoding: 'utf8' });
    expect(out).toContain('no dependency violations found');
  });

  it('keeps every source folder to at most 20 files, so that each says what is in it', () => {
    const crowded: string[] = [];
    const walk = (dir: string) => {
      const entries = readdirSync(join(ROOT, dir), { withFileTypes: true });
      const sources = entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).length;
      if (sources > 20) crowded.push(`${dir} (${sources})`);
      for (const e of entries) if (e.isDirectory()) walk(join(dir, e.name));
    };
    for (const top of ['src', 'machines', 'workers', 'handoffs', 'config', 'bench']) walk(top);
    expect(crowded).toEqual([]);
  });
});
