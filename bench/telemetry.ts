// A run's live OpenTelemetry export (issue 41) must never slow it: the same run of the `team` CLI
// (the sim agent, a git repository, 12 tasks on 4 workers), start to exit, with no export (the
// baseline), exporting to a receiver that takes the spans, to one that refuses them (503), and to
// one that never answers. Interleaved in the same rounds; medians.
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { median, type Comparison } from './parts/compare.js';
import { makeScratchDir } from './parts/scratch.js';
import { TEAM_BIN } from '../src/sys/team-bin.js';

const CLI = TEAM_BIN;
const ROUNDS = 3;
const TASKS = 12;
const WORKERS = 4;
// An exec attempt's work: short, so that the export's share shows.
const WORK_MS = 300;
// A receiver's state may cost a run at most a tenth of its time.
const TARGET = 1.1;

type Kind = 'takes' | 'refuses' | 'hangs';

export async function benchTelemetry(): Promise<Comparison[]> {
  const receivers = {
    takes: await receiver((res) => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()),
    refuses: await receiver((res) => res.writeHead(503).end()),
    hangs: await receiver(() => undefined),
  };
  const times: Record<Kind | 'none', number[]> = { none: [], takes: [], refuses: [], hangs: [] };
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      times.none.push(await timedRun('none', undefined));
      for (const kind of ['takes', 'refuses', 'hangs'] as const) times[kind].push(await timedRun(kind, receivers[kind].url));
    }
  } finally {
    for (const r of Object.values(receivers)) {
      r.server.closeAllConnections();
      r.server.close();
    }
  }
  const baselineMs = median(times.none);
  const got = receivers.takes.requests;
  return (['takes', 'refuses', 'hangs'] as const).map((kind) => ({
    name: `telemetry ${kind === 'takes' ? 'live' : kind === 'refuses' ? 'refused' : 'hanging'}`,
    detail: `${TASKS} tasks, ${WORKERS} workers, start to exit: a receiver that ${kind === 'takes' ? `takes the spans (${got} requests)` : kind === 'refuses' ? 'answers 503' : 'never answers'} vs no export; median of ${ROUNDS}`,
    ms: median(times[kind]),
    baselineMs,
    target: TARGET,
  }));
}

async function receiver(answer: (res: import('node:http').ServerResponse) => void): Promise<{ url: string; server: Server; requests: number }> {
  const state = { requests: 0 };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.requests += 1;
      answer(res);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    get requests() {
      return state.requests;
    },
  };
}

async function timedRun(kind: Kind | 'none', endpoint: string | undefined): Promise<number> {
  const dir = makeScratchDir(`teamline-bench-telemetry-${kind}-`);
  const tasks = Array.from({ length: TASKS }, (_, i) => ({ id: `t${i + 1}`, title: `task ${i + 1}`, files: [`src/f${i + 1}.txt`] }));
  mkdirSync(join(dir, '.team'), { recursive: true });
  writeFileSync(join(dir, 'README.md'), 'bench\n');
  writeFileSync(join(dir, 'scenario.json'), JSON.stringify({ plan: { tasks }, defaults: { sleepMs: 20 }, rules: [{ match: { stage: 'team-exec' }, do: { sleepMs: WORK_MS } }] }));
  writeFileSync(join(dir, '.team/config.json'), JSON.stringify({ agents: { sim: { adapter: 'sim', scenario: 'scenario.json' } } }));
  const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint ?? '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '', OTEL_EXPORTER_OTLP_TIMEOUT: '', OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '' };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, stdio: 'ignore' });
  git('init', '--quiet', '--initial-branch', 'main');
  git('add', '.');
  git('commit', '--quiet', '-m', 'base');
  const start = performance.now();
  const run = await execa(process.execPath, [CLI, `${WORKERS}:executor`, 'a run to trace', '--agent', 'sim'], { cwd: dir, env, reject: false, stdin: 'ignore' });
  const ms = performance.now() - start;
  if (run.exitCode !== 0) throw new Error(`the telemetry bench's run (${kind}) exited ${run.exitCode}: ${run.stderr}`);
  return ms;
}
