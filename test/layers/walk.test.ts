// docs/design.md walks one run down the floors: every file it names exists, there are at most 60,
// and the walk never goes back to a floor above one it has reached (the floors are the layering
// check's, .dependency-cruiser.cjs).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/team.js';

const require = createRequire(import.meta.url);
const config = require(join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: Array<{ name: string; from: { path?: string } }> };
// The floors, top first: src/cli.ts, then each floor's rule against importing upward, in order.
const FLOORS = ['^src/cli[.]ts$', ...config.forbidden.filter((rule) => rule.name.startsWith('no-upward-from-')).map((rule) => rule.from.path!)].map((path) => new RegExp(path));

// The walk's paragraphs: each opens with the folders it is about in bold, then names files relative
// to them (or from the project's root).
function walk(): Array<{ folders: string[]; files: string[] }> {
  const text = readFileSync(join(ROOT, 'docs/design.md'), 'utf8');
  const start = text.indexOf('## From `team 3:executor "task"` to the agent and back');
  const section = text.slice(start, text.indexOf('\n## ', start + 1));
  const paragraphs = section.split(/\n(?=\d+\. \*\*)/).slice(1);
  return paragraphs.map((paragraph) => {
    const head = /^\d+\. \*\*(.*?)\*\*/.exec(paragraph)![1]!;
    const folders = [...head.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\/$/, ''));
    const body = paragraph.slice(paragraph.indexOf('**', 4) + 2);
    const files = [...body.matchAll(/`([A-Za-z][\w/<>.-]*\.(?:ts|md))`/g)].map((m) => m[1]!);
    return { folders, files: head.endsWith('.ts`') ? [folders[0]!, ...files] : files };
  });
}

// A file the walk names, found from the project's root or from one of its paragraph's folders; a
// <placeholder> stands for any file of its folder.
function locate(name: string, folders: string[]): string | undefined {
  const candidates = [name, ...folders.map((folder) => `${folder}/${name}`)];
  return candidates.find((path) => (path.includes('<') ? existsSync(join(ROOT, path.slice(0, path.lastIndexOf('/')))) : existsSync(join(ROOT, path))));
}

function floorOf(path: string): number {
  return FLOORS.findIndex((floor) => floor.test(path));
}

describe("design.md's walk of one run", () => {
  const paragraphs = walk();

  it('names at most 60 files, each of which exists', () => {
    const named = paragraphs.flatMap(({ folders, files }) => files.map((file) => ({ file, path: locate(file, folders) })));
    expect(named.filter((entry) => entry.path === undefined)).toEqual([]);
    expect(new Set(named.map((entry) => entry.path)).size).toBe(named.length);
    expect(named.length).toBeGreaterThan(30);
    expect(named.length).toBeLessThanOrEqual(60);
  });

  it('goes down the floors one paragraph a floor, never back to one it has left', () => {
    const floors = paragraphs.flatMap(({ folders, files }) => files.map((file) => floorOf(locate(file, folders)!)));
    expect(floors.filter((floor) => floor < 0)).toEqual([]);
    expect(floors).toEqual([...floors].sort((a, b) => a - b));
    expect(paragraphs.map(({ folders }) => floorOf(`${folders[0]}${folders[0]!.endsWith('.ts') ? '' : '/x.ts'}`))).toEqual([...new Set(floors)]);
  });
});
