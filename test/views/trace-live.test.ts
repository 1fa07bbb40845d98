// A run's live OpenTelemetry export (issue 41): the built `team` CLI, the sim agent, a git
// repository, 2 workers, a verify gate and a fix loop, exporting through the official exporters to
// an OTLP/HTTP receiver on 127.0.0.1 while the run goes (test/helpers/otlp-receiver.ts: no
// OpenTelemetry Collector is installable here). A receiver that refuses or hangs never fails the
// run; a run killed with kill -9 and resumed sends every span once.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { GIT_ENV, makeGitProject } from '../helpers/git-project.js';
import { attr, spansOf, startReceiver, type OtlpSpan } from '../helpers/otlp-receiver.js';
import { removeProjects } from '../helpers/project.js';
import { hasSpawned } from '../helpers/sim-project.js';
import { CLI, runTeam } from '../helpers/team.js';
import { waitFor } from '../helpers/wait-event.js';

afterAll(removeProjects);
const gates = mkdtempSync(join(tmpdir(), 'teamline-live-'));
afterAll(() => rmSync(gates, { recursive: true, force: true }));

// No OTEL_* variable of the test's own environment reaches a run.
const NO_OTEL = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '', OTEL_EXPORTER_OTLP_PROTOCOL: '', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: '', OTEL_EXPORTER_OTLP_TIMEOUT: '', OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '', OTEL_SDK_DISABLED: '', OTEL_TRACES_EXPORTER: '' };

// The verify gate fails once (a fix loop); the first exec task's agent waits for `release` to exist.
function scenario(release: string) {
  return {
    plan: { tasks: [{ id: 'schema', title: 'Schema', files: ['schema.txt'] }, { id: 'handler', title: 'Handler', files: ['handler.txt'], blockedBy: ['schema'] }] },
    verify: { failPasses: 1, defects: [{ id: 'd-empty-name', description: 'An empty name is accepted.', task: 'handler' }] },
    defaults: { sleepMs: 50 },
    rules: [{ match: { stage: 'team-exec', task: 'schema' }, do: { shell: `while [ ! -f '${release}' ]; do sleep 0.05; done` } }],
  };
}

type Printed = { spanId: string; parentSpanId?: string; name: string; attributes: Record<string, unknown>; events: Array<{ name: string }> };

const key = (s: { spanId: string; parentSpanId?: string; name: string }) => `${s.name} ${s.spanId} < ${s.parentSpanId ?? ''}`;

describe('a run exported live', () => {
  it('sends its spans while it goes, each once, over OTLP/HTTP JSON as team.telemetry says: the same trace `team trace` gives after the fact', async () => {
    const release = join(gates, 'live-release');
    // The first exec task cannot end before the receiver has had a span of the run: the export is live.
    const receiver = await startReceiver({ onRequest: () => writeFileSync(release, 'go') });
    try {
      const project = makeGitProject(scenario(release), { team: { telemetry: { endpoint: receiver.url, protocol: 'http/json' } }, verify: { commands: ['node -e "process.exit(0)"'] } });
      const run = await runTeam(['2:executor', 'add input validation secret-words-of-the-user', '--agent', 'sim'], { cwd: project.dir, env: { ...GIT_ENV, ...NO_OTEL } });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(existsSync(release)).toBe(true);
      expect(run.stderr).not.toContain('telemetry:');
      expect(receiver.received.length).toBeGreaterThan(1);
      for (const r of receiver.received) expect([r.path, r.type]).toEqual(['/v1/traces', 'application/json']);
      const sent = spansOf(receiver.received);
      expect(new Set(sent.map((s) => s.spanId)).size).toBe(sent.length);
      // What `team trace` makes of the log afterwards: the same spans, ids, parents and attributes.
      const after = JSON.parse((await runTeam(['trace'], { cwd: project.dir, env: NO_OTEL })).stdout) as Printed[];
      expect(sent.map(key).sort()).toEqual(after.map(key).sort());
      const attributesOf = (s: OtlpSpan) => Object.fromEntries(s.attributes.map((a) => [a.key, attr(s, a.key)]));
      for (const s of after) {
        const live = sent.find((l) => l.spanId === s.spanId)!;
        expect(attributesOf(live), s.name).toEqual(JSON.parse(JSON.stringify(s.attributes)));
      }
      expect(sent.find((s) => s.name === 'invoke_workflow teamline')!.events?.map((e) => e.name)).toContain('fix_loop_started');
      expect(sent.filter((s) => s.name === 'team-fix')).toHaveLength(1);
      // The run's task and the agents' words stay out unless content capture is on.
      expect(receiver.received.map((r) => r.body.toString('utf8')).join('')).not.toContain('secret-words-of-the-user');
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('goes on, and completes, when the receiver refuses, or hangs: the run tells it once', async () => {
    for (const bad of [{ refuse: 503 }, { hang: true }]) {
      const receiver = await startReceiver(bad);
      try {
        const project = makeGitProject({ plan: { tasks: [{ id: 't1', title: 'One', files: ['a.txt'] }, { id: 't2', title: 'Two', files: ['b.txt'] }] }, defaults: { sleepMs: 50 } });
        const run = await runTeam(['2:executor', 'a run whose receiver is down', '--agent', 'sim'], { cwd: project.dir, env: { ...GIT_ENV, ...NO_OTEL, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });
        expect(run.exitCode, run.stderr).toBe(0);
        expect(project.readRun().events.some((e) => e.event === 'run_completed')).toBe(true);
        const told = run.stderr.split('\n').filter((line) => line.includes('telemetry:'));
        expect(told, JSON.stringify(bad)).toHaveLength(1);
        expect(told[0]).toContain(`the receiver at ${receiver.url} did not take the run's spans`);
        expect(told[0]).toContain(`team trace --run ${project.readRun().runId}`);
        // Once told, no more is sent: one request (and the exporter's own retries of it) at most.
        expect(receiver.received.length).toBeGreaterThan(0);
        expect(new Set(receiver.received.map((r) => r.body.toString('base64'))).size).toBe(1);
      } finally {
        await receiver.close();
      }
    }
  }, 120_000);

  it('sends nothing when team.telemetry.enabled is false, whatever OTEL_EXPORTER_OTLP_ENDPOINT says', async () => {
    const receiver = await startReceiver();
    try {
      const project = makeGitProject({ plan: { tasks: [{ id: 't1', title: 'One' }] }, defaults: { sleepMs: 50 } }, { team: { telemetry: { enabled: false } } });
      const run = await runTeam(['2:executor', 'a run not traced', '--agent', 'sim'], { cwd: project.dir, env: { ...GIT_ENV, ...NO_OTEL, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
    }
  }, 120_000);
});

describe('a run exported live, killed with kill -9 and resumed', () => {
  it('continues the same trace: no span sent twice, the run and the stages it was in sent once, at the end', async () => {
    const receiver = await startReceiver();
    try {
      const project = makeGitProject({ plan: { tasks: [{ id: 't1', title: 'Slow', files: ['a.txt'] }, { id: 't2', title: 'Quick', files: ['b.txt'] }] }, rules: [{ match: { stage: 'team-exec', task: 't1' }, do: { sleepMs: 4000 } }] });
      const env = { ...GIT_ENV, ...NO_OTEL, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' };
      const orchestrator = execa('node', [CLI, '2:executor', 'a run to kill', '--agent', 'sim'], { cwd: project.dir, env, reject: false, stdin: 'ignore' });
      await waitFor("t1's agent started", () => hasSpawned(project, 't1'), 60_000, 50);
      // The plan's spans were sent by the first orchestrator before it was killed.
      await waitFor('the plan stage sent', () => spansOf(receiver.received).some((s) => s.name === 'team-plan'), 60_000, 50);
      orchestrator.kill('SIGKILL');
      await orchestrator;
      const resumed = await runTeam(['resume'], { cwd: project.dir, env });
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      const sent = spansOf(receiver.received);
      expect(new Set(sent.map((s) => s.spanId)).size, sent.map((s) => s.name).join(', ')).toBe(sent.length);
      const after = JSON.parse((await runTeam(['trace'], { cwd: project.dir, env: NO_OTEL })).stdout) as Printed[];
      // Every span sent is one of the run's trace; the run, its exec stage and every attempt among them.
      const ids = new Set(after.map(key));
      for (const s of sent) expect(ids.has(key(s)), s.name).toBe(true);
      expect(sent.filter((s) => s.name === 'invoke_workflow teamline')).toHaveLength(1);
      expect(sent.filter((s) => s.name === 'team-exec')).toHaveLength(1);
      const attempts = project.readRun().events.filter((e) => e.event === 'task_started').map((e) => `${e.task_id}#${e.attempt}`);
      const agentSpans = sent.filter((s) => s.name === 'invoke_agent sim').map((s) => `${String(attr(s, 'teamline.task.id'))}#${Number(attr(s, 'teamline.attempt'))}`);
      expect(agentSpans.sort()).toEqual([...new Set(attempts)].sort());
    } finally {
      await receiver.close();
    }
  }, 120_000);
});
