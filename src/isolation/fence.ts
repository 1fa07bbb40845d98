// What an attempt may write, and its command line inside the fence (workers/fence.ts): one plan for
// every CLI and both runners (this machine's, a team worker's). Writable: the working folder, the
// attempt folder, a private temporary folder in it, the CLI's own state (its catalogue record
// names it), and, in a linked worktree, what a commit there needs of the repository: the object
// store, the worktree's own administrative folder and the `team/…` branches. Never the user's
// checkout, its index, HEAD and other branches, other workers' worktrees, or the rest of the home.
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { git } from '../git/git.js';
import { fencedCommand, probeFence, type FencePlan } from '../../workers/fence.js';
import type { AgentAdapter, AgentCommand, LaunchSpec } from '../../workers/types.js';
import { UsageError } from '../sys/errors.js';

export type FenceSetting = 'auto' | 'required' | 'off';

// Where the private temporary folder is, in the attempt folder.
const TMP_DIR = 'tmp';
// The attempt's folders bound over a CLI's fixed places (FencePlan.masks).
const PRIVATE_DIR = 'private';
// The branches a run's worktrees commit to: refs/heads/team/<run> and team/<run>--<task>.
const TEAM_BRANCHES = ['refs', 'heads', 'team'];

export interface FenceFacts {
  workDir: string;
  attemptDir: string;
  /** The CLI whose state stays writable; none for a gate. */
  adapter?: AgentAdapter;
  /** The worker's environment additions (the agent's env among them). */
  env: Record<string, string>;
  /** team.fenceWritable: more places left writable, absolute or under ~/. */
  extra?: string[];
}

// The plan of one attempt. Folders it names that do not exist yet are made (the CLI's state, the
// temporary folder, the worktree's reflog folder for team branches).
export async function fencePlan(facts: FenceFacts): Promise<FencePlan> {
  const tmp = join(facts.attemptDir, TMP_DIR);
  const writable = [facts.workDir, facts.attemptDir, tmp, ...(await gitWritable(facts.workDir))];
  const env = { ...process.env, ...facts.env };
  const home = env.HOME || homedir();
  const state = facts.adapter?.facts?.state?.(env, home);
  // The config's own places, those that exist (a bind needs its source).
  writable.push(...(facts.extra ?? []).map((path) => (path.startsWith('~/') ? join(home, path.slice(2)) : path)).filter((path) => existsSync(path)));
  // A state file is bound only where it is: a CLI that finds none goes on without it (claude's ~/.claude.json).
  if (state) writable.push(...state.dirs, ...(state.files ?? []).filter((file) => existsSync(file)));
  for (const dir of [tmp, ...(state?.dirs ?? [])]) mkdirSync(dir, { recursive: true });
  return { writable, tmp, masks: privatePlaces(state?.private ?? [], facts.attemptDir) };
}

// An empty folder of the attempt's for each fixed place a CLI uses outside TMPDIR, bound over it; the
// place itself is made first where it is missing (bwrap binds only onto what exists), private to the
// user as the CLI makes it. A place that cannot be made is left as it is.
function privatePlaces(places: string[], attemptDir: string): Array<{ source: string; target: string }> {
  const masks: Array<{ source: string; target: string }> = [];
  places.forEach((target, i) => {
    try {
      mkdirSync(target, { recursive: true, mode: 0o700 });
      const source = join(attemptDir, PRIVATE_DIR, String(i));
      mkdirSync(source, { recursive: true, mode: 0o700 });
      masks.push({ source, target });
    } catch {
      // Not here: the CLI meets the read-only place as it would.
    }
  });
  return masks;
}

// The places a commit in the working folder writes outside it: none when its repository is inside
// it (a clone, or the project itself under isolation none); for a linked worktree, its own folder
// under <common>/worktrees, the objects, and the team branches and their reflogs.
// A worker's worktree is asked once: its repository does not move during a run, and a git process
// per attempt is the orchestrator's own time (a fork of node) while eight agents start.
const gitPlaces = new Map<string, Promise<string[]>>();
function gitWritable(workDir: string): Promise<string[]> {
  let places = gitPlaces.get(workDir);
  if (!places) gitPlaces.set(workDir, (places = lookGitWritable(workDir)));
  return places;
}

async function lookGitWritable(workDir: string): Promise<string[]> {
  const found = await git(workDir, ['rev-parse', '--path-format=absolute', '--git-dir', '--git-common-dir']);
  if (!found.ok) return [];
  const [gitDir, commonDir] = found.stdout.split('\n').map((line) => resolve(line.trim()));
  if (!gitDir || !commonDir || inside(gitDir, workDir)) return [];
  if (gitDir === commonDir) return [gitDir];
  const branches = join(commonDir, ...TEAM_BRANCHES);
  const reflogs = join(commonDir, 'logs', ...TEAM_BRANCHES);
  for (const dir of [branches, reflogs]) mkdirSync(dir, { recursive: true });
  return [gitDir, join(commonDir, 'objects'), branches, reflogs];
}

function inside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

// What a run's attempts get: the fence, or why not. `required` with no fence is the caller's to
// refuse (the run's start, a team worker's job).
export function fenceFor(setting: FenceSetting): { on: true; bwrap: string; env: string } | { on: false; why: string } {
  if (setting === 'off') return { on: false, why: 'team.fence is "off"' };
  const probe = probeFence();
  return probe.ok ? { on: true, bwrap: probe.bwrap, env: probe.env } : { on: false, why: probe.why };
}

// Puts the spec's command (the adapter's, already built) inside the fence.
export async function fenceSpec(spec: LaunchSpec, adapter: AgentAdapter, fence: { bwrap: string; env: string }, extra: string[] = []): Promise<void> {
  // The worker's environment: the attempt's and the command's own (an ACP agent's name, say).
  const plan = await fencePlan({ workDir: spec.cwd, attemptDir: spec.attemptDir, adapter, env: { ...spec.env, ...spec.command.env }, extra });
  spec.command = fencedCommand(spec.command, plan, fence);
}

// A run's word on its fence, at its start: the record for run_started, a line when its workers run
// unfenced where the fence was wanted, and a refusal (exit 2) when it is required and cannot be built.
export function fenceAtStart(setting: FenceSetting, say: (line: string) => void): { on: boolean; why?: string } {
  const fence = fenceFor(setting);
  if (fence.on) return { on: true };
  if (setting === 'required') throw new UsageError(`team.fence is "required", and ${fence.why}: the run is not started`);
  if (setting === 'auto') say(`⚠ this run's workers are unfenced: ${fence.why} (team.fence: "required" refuses to run so; "off" turns the fence off)`);
  return { on: false, why: fence.why };
}

// A resume of a run that started fenced, where the fence is not built now (team.fence "off", or a
// machine without it): the log says so (fence_lost), so that a change to the user's checkout from
// here is no longer taken for the user's own, and the run says once that its workers are unfenced.
export function fenceAtResume(setting: FenceSetting, recorded: { on: boolean } | undefined, record: (why: string) => void, say: (line: string) => void): void {
  if (recorded?.on !== true) return;
  const fence = fenceFor(setting);
  if (fence.on || setting === 'required') return;
  record(fence.why);
  say(`⚠ this run's workers are unfenced from here: ${fence.why}`);
}

// Fences an attempt's command when the run's setting asks for it and this machine can: the agent
// runs unfenced only where the setting allows it (`auto` on a machine without the fence, `off`).
export async function fenceAttempt(setting: FenceSetting, spec: LaunchSpec, adapter: AgentAdapter, extra: string[] = []): Promise<void> {
  const fence = fenceFor(setting);
  if (fence.on) return fenceSpec(spec, adapter, fence, extra);
  if (setting === 'required') throw new UsageError(`team.fence is "required", and ${fence.why}: the attempt ${spec.taskId} a${spec.attempt} is not started`);
}

// A gate's command line (`sh -c <command>` in `cwd`), fenced as an attempt's is when the run's setting
// asks for it and this machine can: writable are its folder, `dir` (its own, with a private
// temporary folder) and team.fenceWritable. Unfenced otherwise (a required fence was refused at the start).
export async function fenceGate(setting: FenceSetting, command: AgentCommand, cwd: string, dir: string, extra: string[] = []): Promise<AgentCommand> {
  const fence = fenceFor(setting);
  if (!fence.on) return command;
  mkdirSync(dir, { recursive: true });
  return fencedCommand(command, await fencePlan({ workDir: cwd, attemptDir: dir, env: {}, extra }), fence);
}
