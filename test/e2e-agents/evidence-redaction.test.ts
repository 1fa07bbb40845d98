// The built CLI with an agent CLI that fails and echoes a key: what teamline quotes of its output
// (its error text, its last lines) has the key redacted, and says so, wherever the evidence goes.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventsOf, makeAgentProject, removeAgentProjects } from '../helpers/agent-project.js';
import { ROOT } from '../helpers/team.js';

const LEAK_KEY = join(ROOT, 'test/fixtures/agents/leak-key');
// Made-up credentials of the kinds the guard knows, as a CLI might echo them.
const SECRETS = [
  'sk-proj-TESTONLYa1b2c3d4e5f6g7h8',
  'sk_live_TESTONLY0123456789ab',
  'github_pat_TESTONLY0123456789abcdefghij',
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0b25seSJ9.c2lnbmF0dXJlLXRlc3Q',
];
const NOTE = '[teamline redacted what looked like secrets in what the agent CLI printed: an API key, a Stripe secret key, a GitHub token, a JSON web token]';

// Every file of the run folder but the agents' own output files, as [path, text].
function runFiles(dir: string): Array<[string, string]> {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name !== 'output.log')
    .map((entry) => join(entry.parentPath, entry.name))
    .map((path) => [path, readFileSync(path, 'utf8')]);
}

function expectNoSecret(where: string, text: string): void {
  for (const secret of SECRETS) expect(text.includes(secret), `${secret} in ${where}`).toBe(false);
}

afterEach(removeAgentProjects);

describe('runtime/conclude (evidence quoted from a failing agent CLI)', () => {
  it.each([
    { mode: 'lines', adapter: 'claude', quoted: 'exited 3; no machine result; its last output: connecting to the model server | request failed with Authorization: Bearer [redacted]' },
    { mode: 'claude', adapter: 'claude', quoted: 'the API key was refused (Invalid API key: [redacted]' },
  ])('redacts a key the CLI echoed ($mode) from the events, handoffs, log and status, and says so', async ({ mode, adapter, quoted }) => {
    const project = makeAgentProject({ LEAKED_KEY: SECRETS.join(' ') });
    project.writeConfig({ agents: { leaker: { adapter, command: LEAK_KEY, args: [mode] } } });

    const result = await project.team(['1:executor', 'add input validation to the API', '--agent', 'leaker']);

    expect(result.exitCode, result.stderr).toBe(1);
    const finished = eventsOf(project.readRun(), 'task_finished');
    expect(finished.length).toBeGreaterThan(0);
    for (const event of finished) {
      expect(event.status).toBe('failed');
      expect(event.evidence).toContain(quoted);
      expect(event.evidence).toContain(NOTE);
    }
    expect(eventsOf(project.readRun(), 'run_failed')[0]!.reason).toContain(NOTE);
    const status = await project.team(['status']);
    const statusJson = await project.team(['status', '--json']);
    expect(status.stdout).toContain('[redacted]');
    for (const [name, text] of [['team run stdout', result.stdout], ['team run stderr', result.stderr], ['team status', status.stdout], ['team status --json', statusJson.stdout]]) expectNoSecret(name!, text!);
    const files = runFiles(join(project.dir, '.team', 'runs', project.runId()));
    expect(files.map(([path]) => path.split('/').at(-1))).toEqual(expect.arrayContaining(['log.jsonl']));
    expect(files.some(([path]) => path.includes('/handoffs/'))).toBe(true);
    for (const [path, text] of files) expectNoSecret(path, text);
  }, 120_000);
});
