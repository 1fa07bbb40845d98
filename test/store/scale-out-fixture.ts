// The scale-out tests' world: a database of the file's private cluster, a writer's project folder
// whose config names it (team.store), and `team worker` processes in folders of their own (as
// machines), all of them the built CLI. The sim agent's ledger is shared, so a test can show that
// no attempt did its work twice, and each worker's sim writes its output in its own folder.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterEach } from 'vitest';
import { readLedger, type LedgerEntry } from '../../workers/sim/ledger.js';
import { isProcessAlive, signalGroup } from '../../src/sys/proc.js';
import { readWorkerNews } from '../../src/store/pg/reports.js';
import { PgStore } from '../../src/store/pg/store.js';
import { CLI } from '../helpers/team.js';
import { takenAgent } from '../helpers/worker-reports.js';
import { makeDatabase } from './pg-fixture.js';

export interface Machine {
  dir: string;
  child: ResultPromise;
}

// A store and a writer's project for one test; `worker` starts a team worker as another machine.
export async function openScaleOut(clusterUrl: string, root: string, scenario: object, team: Record<string, unknown> = {}, agent: Record<string, unknown> = {}) {
  const url = await makeDatabase(clusterUrl);
  const writer = join(root, 'writer');
  mkdirSync(join(writer, '.team'), { recursive: true });
  const scenarioFile = join(root, 'scenario.json');
  const ledgerFile = join(root, 'ledger.jsonl');
  writeFileSync(scenarioFile, JSON.stringify(scenario));
  const config = { team: { store: url, ...team }, agents: { sim: { adapter: 'sim', scenario: scenarioFile, env: { TEAM_SIM_LEDGER: ledgerFile }, ...agent } } };
  writeFileSync(join(writer, '.team', 'config.json'), JSON.stringify(config, null, 2));
  const store = await PgStore.open(url, 'teamline scale-out test');
  const started: ResultPromise[] = [];
  const machines: Machine[] = [];
  const world = {
    url,
    writer,
    store,
    machines,
    // `team` (or any command) in `cwd` (default the writer's folder), as its own process.
    team: (args: string[], cwd = writer, extraEnv: Record<string, string> = {}) => {
      const child = execa('node', [CLI, ...args, '--cwd', cwd], { reject: false, stdin: 'ignore', env: { TEAM_SESSION: undefined, ...extraEnv } });
      started.push(child);
      return child;
    },
    // A team worker in a folder of its own, as a machine of its own.
    worker: (name: string, args: string[] = [], extraEnv: Record<string, string> = {}): Machine => {
      const dir = join(root, name);
      mkdirSync(dir, { recursive: true });
      const child = execa('node', [CLI, 'worker', '--store', url, '--cwd', dir, ...args], { reject: false, stdin: 'ignore', env: extraEnv });
      started.push(child);
      const machine = { dir, child };
      machines.push(machine);
      return machine;
    },
    ledger: (): LedgerEntry[] => readLedger(ledgerFile),
    // The tasks whose sim output a machine's folder holds.
    outputsOf: (machine: Machine): string[] => {
      const dir = join(machine.dir, 'sim-output');
      return existsSync(dir) ? readdirSync(dir).map((name) => name.replace(/\.txt$/, '')).sort() : [];
    },
    runId: async (): Promise<string | undefined> => store.current(),
    events: async (runId: string) => (await store.read(runId)).events,
    reports: async (runId: string) => (await readWorkerNews(store, runId, 0)).reports,
    close: async () => {
      for (const child of started) if (child.exitCode === null) child.kill('SIGTERM');
      await Promise.allSettled(started);
      // What a killed worker left running: its agents' own groups, found by their attempt_taken reports.
      const runId = await store.current().catch(() => undefined);
      if (runId) {
        for (const report of await world.reports(runId).catch(() => [])) {
          const agent = takenAgent(report);
          if (agent && isProcessAlive(agent.pid, agent.pidStart)) signalGroup(agent.pid, 'SIGKILL');
        }
      }
      await store.close();
    },
  };
  return world;
}

// Closes each world after its test.
export function closeScaleOuts(): { add<T extends { close(): Promise<void> }>(world: T): T } {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const world of open.splice(0)) await world.close();
  });
  return { add: (world) => (open.push(world), world) };
}
