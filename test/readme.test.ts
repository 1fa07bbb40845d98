// Every command of the README runs, as docs/readme-commands.json says, in a fresh git repository
// outside the clone with `team` installed the README's way into a temporary prefix; the README
// and that list name the same commands; its config example is valid and its exit codes are ours.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../config/schema.js';
import { EXIT } from '../src/sys/errors.js';
import { codeBlocks, readmeAndList, shellCommands, type CommandEntry } from './helpers/readme-commands.js';
import { latestRun, makeScratch, makeSimRepo, runEntry, waitForSpawn, waitGone, type Scratch } from './helpers/readme-scenes.js';

const { readme, entries } = readmeAndList();
const scene = (name: string) => entries.filter((e) => e.scene === name);
// Two quick tasks for the everyday commands; a slow first task for the cancel and the crash.
const QUICK = { plan: { tasks: [{ id: 't1', title: 'Schema' }, { id: 't2', title: 'Handler' }] } };
const SLOW = { ...QUICK, rules: [{ match: { stage: 'team-exec', task: 't1' }, do: { sleepMs: 4000 } }] };

describe('README', () => {
  it('names in docs/readme-commands.json every command of its shell blocks, and the list names no other', () => {
    const inReadme = new Set(shellCommands(readme));
    const listed = new Set(entries.map((e) => e.command));
    expect([...inReadme].filter((c) => !listed.has(c)), 'commands of the README the list does not name').toEqual([]);
    expect([...listed].filter((c) => !inReadme.has(c)), 'commands of the list the README lost').toEqual([]);
    for (const entry of entries) expect(entry.notRun !== undefined || entry.scene !== undefined, `${entry.command}: neither a scene nor notRun`).toBe(true);
  });

  it('names a language on every code block, so that no command hides in an untagged one', () => {
    expect(codeBlocks(readme).filter((b) => b.lang === '').map((b) => b.line)).toEqual([]);
  });

  it('shows a config that teamline accepts', () => {
    const configs = codeBlocks(readme).filter((b) => b.lang === 'json');
    expect(configs).toHaveLength(1);
    expect(configSchema.safeParse(JSON.parse(configs[0]!.lines.join('\n'))).error).toBeUndefined();
  });

  it('lists each exit code of src/sys/errors.ts', () => {
    const rows = new Set([...readme.matchAll(/^\| (\d+) \| /gm)].map((m) => Number(m[1])));
    expect([...rows].sort()).toEqual(Object.values(EXIT).sort());
  });

  it('stays a page for users: at most 300 lines and no run times', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    expect(readme).not.toMatch(/\b\d{1,2}:\d{2}(:\d{2})? UTC\b|\b20\d{6}T\d{6}/);
  });
});

describe('README commands, run', () => {
  let scratch: Scratch;
  const run = async (entry: CommandEntry, cwd: string, project = cwd) => runEntry(entry, { scratch, cwd, project });

  beforeAll(async () => {
    scratch = makeScratch();
    for (const entry of scene('install')) await run(entry, scratch.root);
    const found = await execa('sh', ['-c', 'command -v team'], { env: scratch.env });
    expect(found.stdout).toBe(join(scratch.prefix, 'bin', 'team'));
  }, 120_000);
  afterAll(() => rmSync(scratch.root, { recursive: true, force: true }));

  it('the demo runs from the clone and its next commands work on the project it prints', async () => {
    const [demo, ...next] = scene('demo');
    const output = await run(demo!, scratch.root);
    const project = /^demo project: (.+)$/m.exec(output)?.[1];
    expect(project?.startsWith(scratch.root), output).toBe(true);
    for (const entry of next) await run(entry, scratch.root, project);
  }, 240_000);

  it('the everyday commands, worktrees, land and init run in a project', async () => {
    const project = await makeSimRepo(scratch, 'project', QUICK);
    for (const entry of scene('project')) await run(entry, project);
  }, 240_000);

  it('team cancel stops a run in progress', async () => {
    const project = await makeSimRepo(scratch, 'cancel', SLOW);
    await execa('team', ['3:executor', 'a run to cancel', '--detach'], { cwd: project, env: scratch.env });
    await waitForSpawn(project, 't1');
    for (const entry of scene('cancel')) await run(entry, project);
    const status = await execa('team', ['status'], { cwd: project, env: scratch.env, reject: false });
    expect(status.stdout).toMatch(/status cancelled/);
  }, 120_000);

  it('team resume continues a run whose orchestrator was killed', async () => {
    const project = await makeSimRepo(scratch, 'crash', SLOW);
    await execa('team', ['3:executor', 'a run to crash', '--detach'], { cwd: project, env: scratch.env });
    const pid = await waitForSpawn(project, 't1');
    process.kill(pid, 'SIGKILL');
    await waitGone(pid);
    try {
      for (const entry of scene('crash')) await run(entry, project);
    } finally {
      await execa('team', ['cancel', '--force', '--run', latestRun(project)], { cwd: project, env: scratch.env, reject: false });
    }
  }, 120_000);
});
