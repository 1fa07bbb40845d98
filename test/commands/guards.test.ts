import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeProject, removeProjects, type TestProject } from '../helpers/project.js';

// One project serves every case: each command is refused, so none may change it.
let project: TestProject;
let runId: string;
let outside: string;

beforeAll(async () => {
  project = makeProject();
  outside = mkdtempSync(join(tmpdir(), 'teamline-outside-'));
  writeFileSync(join(outside, 'secret.txt'), 'not yours\n');
  symlinkSync(outside, join(project.dir, 'escape'));
  symlinkSync(join(project.dir, 'no-such-target'), join(project.dir, 'broken'));
  project.write('notes/plan.md', '# plan\n');
  runId = await project.startRun();
  const started = await project.team('state', 'start-task', '--run', runId, '--task', 't1', '--stage', 'team-exec', '--agent', 'sim');
  expect(started.exitCode).toBe(0);
});

afterAll(() => {
  removeProjects();
  rmSync(outside, { recursive: true, force: true });
});

// Everything the refused command could have written: event and approval files, and `current`.
function snapshot(): { events: string[]; approvals: string[]; runs: string[]; current: string } {
  return {
    events: project.listEvents(runId),
    approvals: readdirSync(join(project.runDir(runId), 'approvals')).sort(),
    runs: readdirSync(join(project.dir, '.team/runs')).sort(),
    current: readFileSync(join(project.dir, '.team/runs/current'), 'utf8'),
  };
}

const start = (...extra: string[]) => ['state', 'start-task', '--run', () => runId, '--task', 't2', '--stage', 'team-exec', '--agent', 'sim', ...extra];
const finish = (...extra: string[]) => ['state', 'finish-task', '--run', () => runId, '--task', 't1', '--status', 'completed', ...extra];
const approve = (...extra: string[]) => ['approve', '--stage', 'team-plan', '--by', 'ana', ...extra];

// The run id exists only once beforeAll has run, so cases name it lazily.
type Arg = string | (() => string);
const resolveArgs = (args: Arg[]) => args.map((arg) => (typeof arg === 'function' ? arg() : arg));
const CASES: Array<{ what: string; args: Arg[]; message: string | RegExp }> = [
  { what: 'a task id with a path in it', args: ['state', 'start-task', '--run', () => runId, '--task', '../x', '--stage', 'team-exec', '--agent', 'sim'], message: '--task: "../x" is not a valid id' },
  { what: 'an empty task id', args: ['state', 'start-task', '--run', () => runId, '--task', '', '--stage', 'team-exec', '--agent', 'sim'], message: 'team state start-task: --task is required' },
  { what: 'a task id of 129 characters', args: ['state', 'start-task', '--run', () => runId, '--task', 'a'.repeat(129), '--stage', 'team-exec', '--agent', 'sim'], message: /^team: --task: "a{57}\.\.\." is not a valid id/ },
  { what: 'a stage id starting with a dot', args: ['state', 'start-run', '--profile', 'p', '--stage', '.hidden'], message: '--stage: ".hidden" is not a valid id' },
  { what: 'an input path escaping with ..', args: start('--input', '../x'), message: '--input: "../x" is outside the project' },
  { what: 'an absolute input path outside the project', args: start('--input', '/etc/passwd'), message: '--input: "/etc/passwd" is outside the project' },
  { what: 'an input path through a symlink leading outside', args: start('--input', 'escape/secret.txt'), message: '--input: "escape/secret.txt" leads outside the project through a symbolic link' },
  { what: 'an input path through a broken symlink', args: start('--input', 'broken'), message: '--input: "broken" goes through a broken symbolic link' },
  { what: 'one bad input among good ones', args: start('--input', 'notes/plan.md', '../x'), message: '--input: "../x" is outside the project' },
  { what: 'an artifact path escaping with ..', args: finish('--artifact', '../../etc/passwd'), message: '--artifact: "../../etc/passwd" is outside the project' },
  { what: 'an artifact through a symlink leading outside', args: finish('--artifact', 'escape'), message: '--artifact: "escape" leads outside the project through a symbolic link' },
  { what: 'an approval of a file outside the project', args: approve('--artifact', '/etc/passwd'), message: '--artifact: "/etc/passwd" is outside the project' },
  { what: 'an approval through a symlink leading outside', args: approve('--artifact', 'escape/secret.txt'), message: '--artifact: "escape/secret.txt" leads outside the project through a symbolic link' },
  { what: 'an approval of a file that does not exist', args: approve('--artifact', 'notes/missing.md'), message: 'team approve: --artifact notes/missing.md is not a file in the project' },
  { what: 'an OpenAI-style key in evidence', args: finish('--evidence', 'used sk-proj1234567890abcdefXYZ to call'), message: '--evidence: refused, it looks like an API key (sk-...); secrets never enter the log' },
  { what: 'a GitHub token in evidence', args: finish('--evidence', 'token ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'), message: '--evidence: refused, it looks like a GitHub token (ghp_...); secrets never enter the log' },
  { what: 'an AWS access key in next', args: finish('--next', 'deploy with AKIAIOSFODNN7EXAMPLE'), message: '--next: refused, it looks like an AWS access key (AKIA...); secrets never enter the log' },
  { what: 'a private key block in evidence', args: finish('--evidence=-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----'), message: '--evidence: refused, it looks like a private key block; secrets never enter the log' },
  { what: 'a password assignment in evidence', args: finish('--evidence', 'logged in with password=hunter22'), message: '--evidence: refused, it looks like a password or secret assignment (password=...); secrets never enter the log' },
  { what: 'a secret in a retry reason', args: ['state', 'retry', '--run', () => runId, '--task', 't1', '--reason', 'api_key: abc123'], message: '--reason: refused, it looks like a password or secret assignment' },
  { what: 'a secret in an approval note', args: approve('--artifact', 'notes/plan.md', '--note', 'sk-abcdefghijklmnopqrstuvwx'), message: '--note: refused, it looks like an API key (sk-...)' },
  { what: 'evidence over 4000 characters', args: finish('--evidence', 'x'.repeat(4001)), message: '--evidence: 4001 characters, over the limit of 4000' },
  { what: 'a retry reason over 4000 characters', args: ['state', 'retry', '--run', () => runId, '--task', 't1', '--reason', 'y'.repeat(4500)], message: '--reason: 4500 characters, over the limit of 4000' },
  { what: 'a missing required flag', args: ['state', 'start-task', '--run', () => runId, '--task', 't2', '--stage', 'team-exec'], message: 'team state start-task: --agent is required' },
  { what: 'a missing --run', args: ['state', 'finish-task', '--task', 't1', '--status', 'completed'], message: 'team state finish-task: --run is required' },
  { what: 'a flag with no value', args: ['state', 'start-run', '--profile', 'p', '--stage'], message: "team state start-run: --stage needs a value" },
  { what: 'an unknown flag', args: finish('--bogus'), message: "team state finish-task: unknown option --bogus (`team state finish-task --help` lists the options)" },
  { what: 'a negative number for a flag', args: ['state', 'start-run', '--profile', '-1'], message: 'team state start-run: --profile needs a value; a value that starts with "-" is given as --profile=-1' },
  { what: 'an unknown state subcommand', args: ['state', 'frobnicate'], message: 'team state: unknown command "frobnicate"; use start-run, start-task, finish-task, retry, approve or status' },
  { what: 'a missing state subcommand', args: ['state'], message: 'team state: unknown command ""' },
  { what: 'an unknown --run', args: ['state', 'start-task', '--run', '20200101T000000000000Z-abcdef', '--task', 't2', '--stage', 'team-exec', '--agent', 'sim'], message: '--run: no run 20200101T000000000000Z-abcdef in ' },
  { what: 'an unknown --run for status', args: ['status', '--run', '20200101T000000000000Z-abcdef'], message: '--run: no run 20200101T000000000000Z-abcdef in ' },
  { what: 'a --run that is not an id', args: ['status', '--run', '../../etc'], message: '--run: "../../etc" is not a valid id' },
  { what: 'a --cwd that is not a folder', args: ['status', '--cwd', 'notes/plan.md'], message: 'is not a folder' },
];

describe('guards of the team command', () => {
  for (const { what, args, message } of CASES) {
    it(`refuses ${what} with exit 2 and writes nothing`, async () => {
      const before = snapshot();
      const result = await project.team(...resolveArgs(args));
      expect(result.exitCode, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
      if (typeof message === 'string') expect(result.stderr).toContain(message);
      else expect(result.stderr).toMatch(message);
      // The program named once: `team: …`, or the command itself (`team state start-task: …`).
      expect(result.stderr).toMatch(/^team(?: [a-z-]+)*: /);
      expect(result.stderr).not.toMatch(/^team: team\b/);
      expect(snapshot()).toEqual(before);
    });
  }

  // The control: the same commands with good values do write, so "writes nothing" above means something.
  it('accepts the same commands with good values, each writing its file', async () => {
    const before = snapshot();
    const id128 = 'a'.repeat(128);
    expect((await project.team(...resolveArgs(start('--input', 'notes/plan.md')))).exitCode).toBe(0);
    expect((await project.team('state', 'start-task', '--run', runId, '--task', id128, '--stage', 'team-exec', '--agent', 'sim')).exitCode).toBe(0);
    expect((await project.team('approve', '--stage', 'team-plan', '--by', 'ana', '--artifact', 'notes/plan.md')).exitCode).toBe(0);
    const after = snapshot();
    expect(after.events).toHaveLength(before.events.length + 2);
    expect(after.approvals).toHaveLength(before.approvals.length + 1);
  });
});
