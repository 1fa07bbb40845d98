// `team init` through the built CLI: each CLI's files in its own format and place, idempotent,
// a file the user changed kept (unless --force), --print writes nothing, --global under HOME.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL, CLAUDE, codexNote, geminiNote, removeFolders, runInit as init, tempFolder } from '../helpers/init.js';
import { makeProject, removeProjects } from '../helpers/project.js';

afterEach(() => {
  removeProjects();
  removeFolders();
});

describe('team init', () => {
  it('writes the Claude Code commands with their frontmatter, allowed to run team only, and the detach-and-wait loop', async () => {
    const project = makeProject();
    const result = await init(project.dir, ['--claude']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout.split('\n').filter(Boolean)).toEqual(CLAUDE.map((p) => `created   ${p}`));
    const team = readFileSync(join(project.dir, '.claude/commands/team.md'), 'utf8');
    expect(team).toMatch(/^---\ndescription: "[^"]+"\nargument-hint: "\[N:agent-type\] <task>"\nallowed-tools: Bash\(team:\*\)\n---\n/);
    expect(team).toContain('Arguments: $ARGUMENTS');
    expect(team).toContain('`team [N:agent-type] "<task>" --detach`');
    expect(team).toContain('`team wait --run <id> --timeout 100`');
    expect(team).toContain('`team cancel --run <id>`');
    expect(readFileSync(join(project.dir, '.claude/commands/ralph.md'), 'utf8')).toContain('`team ralph [N:agent-type] "<task>" --detach`');
    expect(readFileSync(join(project.dir, '.claude/commands/cancel.md'), 'utf8')).toContain('Run `team cancel`');
  });

  it('writes OpenCode markdown, Gemini TOML that parses with {{args}}, and the Codex skill', async () => {
    const project = makeProject();
    expect((await init(project.dir, ['--opencode', '--gemini', '--codex'])).exitCode).toBe(0);
    expect(readFileSync(join(project.dir, '.opencode/commands/team.md'), 'utf8')).toMatch(/^---\ndescription: "[^"]+"\n---\n\n[\s\S]*Arguments: \$ARGUMENTS/);
    const toml = await execa('python3', ['-c', 'import sys, tomllib, json; print(json.dumps(tomllib.load(open(sys.argv[1], "rb"))))', join(project.dir, '.gemini/commands/team.toml')]);
    const parsed = JSON.parse(toml.stdout) as { description: string; prompt: string };
    expect(parsed.description).toContain('teamline team');
    expect(parsed.prompt).toContain('Arguments: {{args}}');
    expect(parsed.prompt).toContain('--detach');
    const skill = readFileSync(join(project.dir, '.agents/skills/team/SKILL.md'), 'utf8');
    expect(skill).toMatch(/^---\nname: team\ndescription: .+\n---\n/);
    expect(skill).toContain('team wait --run <id> --timeout 100');
    expect(existsSync(join(project.dir, '.claude'))).toBe(false);
  });

  it('is idempotent: a second init changes nothing and says so', async () => {
    const project = makeProject();
    await init(project.dir, ['--claude', '--opencode', '--gemini', '--codex']);
    const before = ALL.map((p) => readFileSync(join(project.dir, p), 'utf8'));
    const again = await init(project.dir, ['--claude', '--opencode', '--gemini', '--codex']);
    // The notes come in the order of the CLIs, as their files do.
    expect(again.stdout.split('\n').filter(Boolean)).toEqual([...ALL.map((p) => `unchanged ${p}`), geminiNote(), codexNote(project.dir)]);
    expect(ALL.map((p) => readFileSync(join(project.dir, p), 'utf8'))).toEqual(before);
  });

  it('keeps a file the user changed, overwrites it with --force, and updates one it wrote itself', async () => {
    const project = makeProject();
    await init(project.dir, ['--claude']);
    const file = join(project.dir, '.claude/commands/team.md');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, `${original}\nAlso say hello.\n`);
    const kept = await init(project.dir, ['--claude']);
    expect(kept.stdout).toContain('kept      .claude/commands/team.md (changed since team init wrote it, or not written by it; --force overwrites it)');
    expect(readFileSync(file, 'utf8')).toContain('Also say hello.');
    const forced = await init(project.dir, ['--claude', '--force']);
    expect(forced.stdout).toContain('overwrote .claude/commands/team.md');
    expect(readFileSync(file, 'utf8')).toBe(original);

    // An older text that init itself wrote (its hash in the manifest) is brought up to date.
    const manifestFile = join(project.dir, '.team/init-manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { files: Record<string, string> };
    writeFileSync(file, 'an older version\n');
    manifest.files['.claude/commands/team.md'] = (await execa('sh', ['-c', `sha256sum "${file}" | cut -d' ' -f1`])).stdout;
    writeFileSync(manifestFile, JSON.stringify(manifest));
    expect((await init(project.dir, ['--claude'])).stdout).toContain('updated   .claude/commands/team.md');
    expect(readFileSync(file, 'utf8')).toBe(original);
  });

  it('keeps a file it never wrote', async () => {
    const project = makeProject();
    project.write('.claude/commands/cancel.md', 'my own cancel\n');
    const result = await init(project.dir, ['--claude']);
    expect(result.stdout).toContain('kept      .claude/commands/cancel.md');
    expect(readFileSync(join(project.dir, '.claude/commands/cancel.md'), 'utf8')).toBe('my own cancel\n');
  });

  it('--print shows every file and writes nothing', async () => {
    const project = makeProject();
    const result = await init(project.dir, ['--claude', '--gemini', '--print']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('── .claude/commands/team.md (claude): would be created\n---\ndescription:');
    expect(result.stdout).toContain("── .gemini/commands/cancel.toml (gemini): would be created\ndescription = ");
    expect(existsSync(join(project.dir, '.claude'))).toBe(false);
    expect(existsSync(join(project.dir, '.gemini'))).toBe(false);
    expect(existsSync(join(project.dir, '.team'))).toBe(false);
  });

  it('--global writes to the user-level folders under HOME and nothing in the project', async () => {
    const project = makeProject();
    const home = tempFolder('teamline-home-');
    const result = await init(project.dir, ['--global', '--claude', '--opencode', '--gemini', '--codex'], { HOME: home });
    expect(result.exitCode, result.stderr).toBe(0);
    for (const path of ['.claude/commands/team.md', '.config/opencode/commands/team.md', '.gemini/commands/team.toml', '.gemini/policies/team.toml', '.agents/skills/team/SKILL.md', '.codex/rules/team.rules', '.team/init-manifest.json']) {
      expect(existsSync(join(home, path)), path).toBe(true);
    }
    expect(result.stdout).toContain('created   ~/.config/opencode/commands/cancel.md');
    expect(existsSync(join(project.dir, '.claude'))).toBe(false);
    expect(existsSync(join(project.dir, '.team'))).toBe(false);
  });

  it('with no flag sets up the CLIs found on PATH, and refuses with exit 2 when there is none', async () => {
    const project = makeProject();
    const bin = join(project.dir, 'bin');
    mkdirSync(bin);
    for (const name of ['claude', 'gemini']) {
      writeFileSync(join(bin, name), '#!/bin/sh\nexit 0\n');
      chmodSync(join(bin, name), 0o755);
    }
    const none = await init(project.dir, []);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toBe('team init: none of claude, opencode, gemini, codex is on PATH; name the CLIs to set up: --claude, --opencode, --gemini, --codex\n');
    expect(existsSync(join(project.dir, '.team'))).toBe(false);
    const found = await init(project.dir, [], { PATH: bin });
    expect(found.exitCode).toBe(0);
    expect(existsSync(join(project.dir, '.claude/commands/team.md'))).toBe(true);
    expect(existsSync(join(project.dir, '.gemini/commands/team.toml'))).toBe(true);
    expect(existsSync(join(project.dir, '.opencode'))).toBe(false);
    expect(existsSync(join(project.dir, '.agents'))).toBe(false);
  });
});
