// `team trace` end to end (issue 41): a run of the built `team` CLI with the sim agent in a git
// repository (2 workers, a verify gate, a fix loop), sent through the official OpenTelemetry
// exporters to an OTLP/HTTP receiver on 127.0.0.1 (test/helpers/otlp-receiver.ts: no OpenTelemetry
// Collector is installable here).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeGitProject, type GitProject } from '../helpers/git-project.js';
import { removeProjects } from '../helpers/project.js';
import { hasSpawned, SCENARIOS_DIR } from '../helpers/sim-project.js';
import { CLI, runTeam, type TeamResult } from '../helpers/team.js';
import { GIT_ENV } from '../helpers/git-project.js';
import { attr, spansOf, startReceiver, type OtlpSpan } from '../helpers/otlp-receiver.js';
import { waitFor } from '../helpers/wait-event.js';

afterAll(removeProjects);

describe('team trace', () => {
  let project: GitProject;
  let run: TeamResult;
  const TASK = 'add input validation to the API secret-words-of-the-user';
  // `team trace` with no OTEL_* variable of the test's own environment, and `env`'s.
  const trace = (args: string[], env: Record<string, string> = {}) =>
    runTeam(['trace', ...args], { cwd: project.dir, env: { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '', OTEL_EXPORTER_OTLP_PROTOCOL: '', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: '', ...env } });

  beforeAll(async () => {
    const scenario = JSON.parse(readFileSync(join(SCENARIOS_DIR, 'e2e-verify-fails-once.json'), 'utf8')) as object;
    project = makeGitProject(scenario, { verify: { commands: ['node -e "process.exit(0)"'] } });
    run = await project.run('2:executor', TASK, '--agent', 'sim');
  }, 120_000);

  it('sends the run as one trace over OTLP/HTTP JSON: the workflow, its stages, an invoke_agent span per attempt under its stage, the gate as execute_tool, the fix loop as an event', async () => {
    expect(run.exitCode, run.stderr).toBe(0);
    const receiver = await startReceiver();
    try {
      const sent = await trace(['--endpoint', receiver.url], { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
      expect(sent.exitCode, sent.stderr).toBe(0);
      expect(receiver.received.map((r) => [r.path, r.type])).toEqual([['/v1/traces', 'application/json']]);
      const spans = spansOf(receiver.received);
      const root = spans.filter((s) => s.parentSpanId === undefined || s.parentSpanId === '');
      expect(root.map((s) => s.name)).toEqual(['invoke_workflow teamline']);
      expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
      expect(sent.stdout).toContain(`${spans.length} spans of run ${project.readRun().runId} (trace ${spans[0]!.traceId}) sent to ${receiver.url} (http/json)`);
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      const parentOf = (s: OtlpSpan) => byId.get(s.parentSpanId ?? '');
      // Every attempt of the log is one invoke_agent span, under the stage it ran in.
      const started = project.readRun().events.filter((e) => e.event === 'task_started');
      const agents = spans.filter((s) => s.name === 'invoke_agent sim');
      expect(agents.map((s) => `${attr(s, 'teamline.task.id')}#${attr(s, 'teamline.attempt')}`).sort()).toEqual(started.map((e) => `${e.task_id}#${e.attempt}`).sort());
      for (const a of agents) {
        expect(attr(a, 'gen_ai.operation.name')).toBe('invoke_agent');
        expect(attr(a, 'gen_ai.agent.name')).toBe('sim');
        expect(parentOf(a)?.name, String(attr(a, 'teamline.task.id'))).toBe(attr(a, 'teamline.stage'));
        expect(typeof attr(a, 'teamline.worker')).toBe('string');
        expect(attr(a, 'teamline.outcome')).toBe('completed');
      }
      // Each on the worker the log says it was spawned on.
      const spawned = new Map(project.readRun().events.flatMap((e) => (e.event === 'attempt_spawned' ? [[`${e.task_id}#${e.attempt}`, e.worker] as const] : [])));
      for (const a of agents) expect(attr(a, 'teamline.worker')).toBe(spawned.get(`${String(attr(a, 'teamline.task.id'))}#${Number(attr(a, 'teamline.attempt'))}`));
      // The stages under the run; the plan's operation is `plan`; team-fix ran once.
      const stages = spans.filter((s) => parentOf(s) === root[0]);
      expect(stages.map((s) => s.name)).toEqual(expect.arrayContaining(['team-plan', 'team-exec', 'team-verify', 'team-fix']));
      expect(attr(stages.find((s) => s.name === 'team-plan')!, 'gen_ai.operation.name')).toBe('plan');
      // The gate of each verify pass, under its verify stage.
      const gates = spans.filter((s) => s.name === 'execute_tool gate');
      expect(gates.length).toBe(2);
      for (const g of gates) {
        expect(attr(g, 'gen_ai.operation.name')).toBe('execute_tool');
        expect(parentOf(g)?.name).toBe('team-verify');
        expect(Number(attr(g, 'process.exit.code'))).toBe(0);
      }
      expect(root[0]!.events?.map((e) => e.name)).toContain('fix_loop_started');
      // No content: the run's task and the agents' words stay out of the trace.
      const text = receiver.received.map((r) => r.body.toString('utf8')).join('');
      expect(text).not.toContain('secret-words-of-the-user');
    } finally {
      await receiver.close();
    }
  });

  it('gives the same trace and span ids when the run is traced again, and sends protobuf by default', async () => {
    const json = await trace([]);
    const printed = JSON.parse(json.stdout) as Array<{ traceId: string; spanId: string }>;
    const again = JSON.parse((await trace([])).stdout) as Array<{ traceId: string; spanId: string }>;
    expect(again.map((s) => s.spanId)).toEqual(printed.map((s) => s.spanId));
    expect(new Set(printed.map((s) => s.spanId)).size).toBe(printed.length);
    const receiver = await startReceiver();
    try {
      const sent = await trace([], { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
      expect(sent.exitCode, sent.stderr).toBe(0);
      expect(receiver.received.map((r) => [r.path, r.type])).toEqual([['/v1/traces', 'application/x-protobuf']]);
      // Protobuf carries the ids as raw bytes and the names as they are.
      const body = receiver.received[0]!.body;
      expect(body.includes(Buffer.from(printed[0]!.traceId, 'hex'))).toBe(true);
      expect(body.includes(Buffer.from('invoke_agent sim'))).toBe(true);
    } finally {
      await receiver.close();
    }
  });

  it('says which receiver refused the trace and why, exit 1; refuses an endpoint that is no http URL, exit 2', async () => {
    const receiver = await startReceiver({ refuse: 400 });
    try {
      const refused = await trace(['--endpoint', receiver.url]);
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain(`team trace: the receiver at ${receiver.url} did not take the trace of run ${project.readRun().runId}:`);
    } finally {
      await receiver.close();
    }
    const bad = await trace(['--endpoint', 'ftp://127.0.0.1:1']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--endpoint: ftp: is not http: or https:');
  });
});

describe('team trace of a run killed with kill -9 and resumed', () => {
  it('gives one trace: one invoke_agent span per attempt of the log, the re-adopted attempt once, every span id once', async () => {
    const scenario = { plan: { tasks: [{ id: 't1', title: 'Slow', files: ['a.txt'] }, { id: 't2', title: 'Quick', files: ['b.txt'] }] }, rules: [{ match: { stage: 'team-exec', task: 't1' }, do: { sleepMs: 4000 } }] };
    const project = makeGitProject(scenario);
    const env = { ...GIT_ENV, OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' };
    const orchestrator = execa('node', [CLI, '2:executor', 'a run to kill', '--agent', 'sim'], { cwd: project.dir, env, reject: false, stdin: 'ignore' });
    // Killed once t1's agent runs: it ends while no orchestrator watches, and the resume adopts it.
    await waitFor("t1's agent started", () => hasSpawned(project, 't1'), 60_000, 50);
    orchestrator.kill('SIGKILL');
    await orchestrator;
    const resumed = await runTeam(['resume'], { cwd: project.dir, env });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const run = project.readRun();
    expect(run.events.filter((e) => e.event === 'run_resumed')).toHaveLength(1);
    const printed = JSON.parse((await runTeam(['trace'], { cwd: project.dir, env })).stdout) as Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; attributes: Record<string, unknown>; events: Array<{ name: string }> }>;
    expect(new Set(printed.map((s) => s.traceId)).size).toBe(1);
    expect(new Set(printed.map((s) => s.spanId)).size).toBe(printed.length);
    const attempts = run.events.filter((e) => e.event === 'task_started').map((e) => `${e.task_id}#${e.attempt}`);
    const spans = printed.filter((s) => s.name === 'invoke_agent sim').map((s) => `${String(s.attributes['teamline.task.id'])}#${Number(s.attributes['teamline.attempt'])}`);
    expect(spans.sort()).toEqual([...new Set(attempts)].sort());
    expect(printed.find((s) => s.name === 'invoke_workflow teamline')!.events.map((e) => e.name)).toContain('run_resumed');
    // Every parent is a span of the trace.
    const ids = new Set(printed.map((s) => s.spanId));
    for (const s of printed) if (s.parentSpanId !== undefined) expect(ids.has(s.parentSpanId), s.name).toBe(true);
  }, 120_000);
});
