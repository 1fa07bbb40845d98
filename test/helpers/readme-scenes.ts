// The scratch world test/readme.test.ts runs the README's commands in: a folder outside the clone
// with a prefix `team` is installed into, a HOME of its own, and fresh git repositories whose
// config routes every role to the sim agent; and the runner of one docs/readme-commands.json entry.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { expect } from 'vitest';
import { GIT_ENV } from './git-project.js';
import type { CommandEntry } from './readme-commands.js';
import { ROOT } from './team.js';
import { waitFor } from './wait-event.js';

export interface Scratch {
  root: string;
  prefix: string;
  home: string;
  env: Record<string, string>;
}

// A scratch folder outside the clone: prefix/ for the install, home/ as HOME, tmp/ as TMPDIR.
export function makeScratch(): Scratch {
  const root = mkdtempSync(join(tmpdir(), 'teamline-readme-'));
  const [prefix, home, tmp] = ['prefix', 'home', 'tmp'].map((name) => join(root, name));
  for (const dir of [prefix, home, tmp]) mkdirSync(dir!);
  const env = { ...GIT_ENV, HOME: home!, TMPDIR: tmp!, npm_config_prefix: prefix!, PATH: `${join(prefix!, 'bin')}:${process.env.PATH ?? ''}` };
  return { root, prefix: prefix!, home: home!, env };
}

// A fresh git repository `name` in the scratch folder, every role on the sim agent playing `scenario`
// (kept in .team/, so that nothing of it is committed or merged).
export async function makeSimRepo(scratch: Scratch, name: string, scenario: object): Promise<string> {
  const dir = join(scratch.root, name);
  mkdirSync(join(dir, '.team'), { recursive: true });
  writeFileSync(join(dir, '.team', 'scenario.json'), JSON.stringify(scenario));
  const roles = Object.fromEntries(['planner', 'executor', 'verifier', 'architect'].map((role) => [role, 'sim']));
  writeFileSync(join(dir, '.team', 'config.json'), JSON.stringify({ agents: { sim: { adapter: 'sim', scenario: '.team/scenario.json' } }, roles }));
  writeFileSync(join(dir, 'README.md'), `# ${name}\n`);
  for (const args of [['init', '--quiet', '--initial-branch', 'main'], ['add', 'README.md'], ['commit', '--quiet', '-m', 'base']]) {
    await execa('git', args, { cwd: dir, env: scratch.env });
  }
  return dir;
}

// The latest run of a project.
export function latestRun(project: string): string {
  return readFileSync(join(project, '.team', 'runs', 'current'), 'utf8').trim();
}

// Waits until the latest run has recorded the spawn of `task`'s first attempt; its orchestrator's pid.
export async function waitForSpawn(project: string, task: string): Promise<number> {
  const runDir = () => join(project, '.team', 'runs', latestRun(project));
  await waitFor(`${task}'s worker to start`, () => readdirSync(join(runDir(), 'events')).some((name) => name.includes(`-attempt_spawned-${task}-a1-`)));
  return (JSON.parse(readFileSync(join(runDir(), 'lock.json'), 'utf8')) as { pid: number }).pid;
}

// What fills the placeholders of an entry in one scene.
export interface SceneVars {
  scratch: Scratch;
  cwd: string;
  project: string;
}

// Runs one entry as the list says (its `runs`, else the README's own text) with `sh -c`, and checks
// its exit code, its output and the file it makes; returns its output.
export async function runEntry(entry: CommandEntry, vars: SceneVars): Promise<string> {
  const fill = (text: string) =>
    text
      .replaceAll('<project folder>', vars.project)
      .replaceAll('<run id>', () => latestRun(vars.project))
      .replaceAll('<home>', vars.scratch.home)
      .replaceAll('<prefix>', vars.scratch.prefix);
  const text = fill(entry.runs ?? entry.command);
  const cwd = entry.in === 'clone' ? ROOT : vars.cwd;
  const result = await execa('sh', ['-c', text], { cwd, env: vars.scratch.env, all: true, reject: false, stdin: 'ignore', timeout: 180_000 });
  const output = String(result.all ?? '');
  const said = `\`${text}\` in ${cwd} (${result.exitCode ?? result.signal}):\n${output}`;
  expect([entry.exit ?? 0].flat(), said).toContain(result.exitCode);
  if (entry.prints) expect(output, said).toMatch(new RegExp(entry.prints, 'm'));
  if (entry.makes) {
    const file = resolve(cwd, fill(entry.makes));
    expect(existsSync(file), `${said}\nmade no ${file}`).toBe(true);
    if (entry.containing) expect(readFileSync(file, 'utf8'), `${said}\nin ${file}`).toContain(fill(entry.containing));
  }
  return output;
}

// Waits until `pid` is gone (or a zombie, which holds nothing).
export async function waitGone(pid: number): Promise<void> {
  await waitFor(`pid ${pid} to end`, () => {
    try {
      return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
    } catch {
      return true;
    }
  });
}
