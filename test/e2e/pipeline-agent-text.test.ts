// The built `team` CLI checks what agents hand back like what users hand in: secrets are redacted
// before anything is recorded (the evidence says so) and every field is cut to its bound.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeProjects } from '../helpers/project.js';
import { eventsOf, makeSimProject, type RunRead, type SimProject } from '../helpers/sim-project.js';
import type { TeamResult } from '../helpers/team.js';

// One secret of each new kind, plus an old one; none may reach a file teamline writes.
const GITHUB_TOKEN = 'ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const STRIPE_KEY = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';
const FINE_GRAINED = 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz';
const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const SECRETS = [GITHUB_TOKEN, STRIPE_KEY, FINE_GRAINED, JWT];
const HUGE = 5 * 1024 * 1024;

const SCENARIO = {
  // The sim puts the scenario's name in every result's evidence.
  name: `agent-text ${STRIPE_KEY}`,
  plan: {
    tasks: [
      { id: 't1', title: `Rotate ${GITHUB_TOKEN}`, description: 'd'.repeat(HUGE), acceptance: [`no token like ${JWT} left`] },
      { id: 't2', title: 'Plain', blockedBy: ['t1'], acceptance: ['works'] },
    ],
  },
  verify: { failPasses: 1, defects: [{ id: 'd1', description: `still sends ${FINE_GRAINED}`, task: 't2' }] },
};

// Every file teamline wrote in the run folder. The agents' own result.json and output.log are
// theirs (what they wrote and printed) and are left out.
function writtenByTeamline(runDir: string): Array<{ file: string; text: string }> {
  const files: Array<{ file: string; text: string }> = [];
  for (const entry of readdirSync(runDir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || ['result.json', 'output.log'].includes(entry.name)) continue;
    const path = join(entry.parentPath, entry.name);
    files.push({ file: relative(runDir, path), text: readFileSync(path, 'utf8') });
  }
  return files;
}

afterAll(removeProjects);

describe('pipeline agent text', () => {
  let project: SimProject;
  let result: TeamResult;
  let run: RunRead;

  beforeAll(async () => {
    project = makeSimProject(SCENARIO);
    result = await project.team('2:executor', 'keep secrets out of the log', '--agent', 'sim');
    run = project.readRun();
  }, 120_000);

  it('goes on with the run: redacting is not refusing', () => {
    expect(result.exitCode, result.stderr).toBe(0);
  });

  it('writes no secret an agent handed back into any file of the run folder it writes', () => {
    const files = writtenByTeamline(run.paths.runDir);
    expect(files.map((f) => f.file)).toEqual(expect.arrayContaining(['log.jsonl', 'run.json']));
    for (const { file, text } of files) {
      for (const secret of SECRETS) expect(text.includes(secret), `${secret.slice(0, 12)}… in ${file}`).toBe(false);
    }
    expect(result.stdout + result.stderr).not.toMatch(/ghp_ABCDEFGH|sk_live_4eC3|github_pat_11|eyJhbGciOiJI/);
  });

  it('keeps the redacted text in place of the secret', () => {
    const [plan] = eventsOf(run.events, 'plan_accepted');
    expect(plan!.tasks[0]!.title).toBe('Rotate [redacted]');
    expect(plan!.tasks[0]!.acceptance).toEqual(['no token like [redacted] left']);
    const [verify] = eventsOf(run.events, 'verify_result');
    expect(verify!.defects[0]!.description).toBe('still sends [redacted]');
  });

  it('says in the evidence what it redacted and cut', () => {
    const planned = eventsOf(run.events, 'task_finished').find((e) => e.task_id === 'plan')!;
    expect(planned.evidence).toContain('teamline redacted what looked like secrets in evidence (a Stripe secret key (sk_live_...)), tasks.0.title (a GitHub token (ghp_...))');
    expect(planned.evidence).toContain('teamline cut tasks.0.description (5242880 characters) to their limits');
  });

  it('cuts a 5 MB task description to 4,000 characters, in every event that carries it', () => {
    const [plan] = eventsOf(run.events, 'plan_accepted');
    expect(plan!.tasks[0]!.description).toHaveLength(4_000);
    const assigned = eventsOf(run.events, 'tasks_assigned').flatMap((e) => e.tasks).find((t) => t.task_id === 't1');
    expect(assigned!.task.description).toHaveLength(4_000);
    const sizes = readdirSync(run.paths.eventsDir).map((name) => readFileSync(join(run.paths.eventsDir, name)).length);
    expect(Math.max(...sizes)).toBeLessThan(64 * 1024);
  });
});
