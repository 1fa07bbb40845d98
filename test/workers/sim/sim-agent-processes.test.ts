import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listGroupMembers } from '../../../src/sys/proc.js';
import { ensureSimBuilt, makeSimFolder, runSim, type SimFolder } from './run-sim.js';

const projects: SimFolder[] = [];
const groups: number[] = [];
function project(scenario?: object | string): SimFolder {
  const made = makeSimFolder(scenario);
  projects.push(made);
  return made;
}

// Starts the sim in its own process group (remembered, so a failing test still cleans it up).
function startDetached(made: SimFolder, task = 't1') {
  const subprocess = runSim(made, { stage: 'team-exec', task }, { detached: true });
  if (subprocess.pid !== undefined) groups.push(subprocess.pid);
  return subprocess;
}

function waitForOutput(subprocess: ReturnType<typeof runSim>, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    subprocess.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) resolve(seen);
    });
    subprocess.stdout?.on('end', () => reject(new Error(`output ended without ${pattern}: ${seen}`)));
  });
}

async function waitUntilGroupGone(pgid: number): Promise<number[]> {
  for (let i = 0; i < 200 && listGroupMembers(pgid).length > 0; i += 1) await sleep(25);
  return listGroupMembers(pgid);
}

describe('sim-agent processes', () => {
  beforeAll(ensureSimBuilt);
  afterEach(async () => {
    for (const pgid of groups.splice(0)) {
      if (listGroupMembers(pgid).length > 0) process.kill(-pgid, 'SIGKILL');
    }
    projects.splice(0).forEach((made) => made.remove());
  });

  it('ignores SIGTERM and SIGINT while hanging, until the group is killed', async () => {
    const stubborn = project('exec-hangs-ignoring-signals.json');
    const subprocess = startDetached(stubborn);
    const pid = subprocess.pid as number;
    await waitForOutput(subprocess, /started by/);
    process.kill(pid, 'SIGTERM');
    process.kill(pid, 'SIGINT');
    await sleep(300);
    expect(listGroupMembers(pid)).toContain(pid);
    process.kill(-pid, 'SIGKILL');
    const run = await subprocess;
    expect(run.signal).toBe('SIGKILL');
    expect(run.stdout).toContain('sim: ignored SIGTERM');
    expect(existsSync(stubborn.resultFile('t1'))).toBe(false);
    expect(stubborn.readLedger()).toEqual([]);
  });

  it('finishes its work after the sleep although SIGTERM came', async () => {
    const stubborn = project({ stages: { 'team-exec': { ignoreSignals: true, sleepMs: 600 } } });
    const subprocess = startDetached(stubborn);
    await waitForOutput(subprocess, /started by/);
    process.kill(subprocess.pid as number, 'SIGTERM');
    const run = await subprocess;
    expect(run.exitCode).toBe(0);
    expect(stubborn.readResult('t1')).toMatchObject({ status: 'completed' });
  });

  it('spawns sleeping children in its own group, all gone after a group kill', async () => {
    const parent = project({ stages: { 'team-exec': { children: 2, hang: true } } });
    const subprocess = startDetached(parent);
    const pid = subprocess.pid as number;
    const output = await waitForOutput(subprocess, /started by/);
    const children = [...output.matchAll(/sim: child pid (\d+)/g)].map((match) => Number(match[1]));
    expect(children).toHaveLength(2);
    expect(listGroupMembers(pid).sort()).toEqual([pid, ...children].sort());
    process.kill(-pid, 'SIGTERM');
    await subprocess;
    expect(await waitUntilGroupGone(pid)).toEqual([]);
  });

  it('hangs without doing its work until killed', async () => {
    const stuck = project({ stages: { 'team-exec': { hang: true } } });
    const subprocess = startDetached(stuck);
    await waitForOutput(subprocess, /started by/);
    await sleep(400);
    expect(existsSync(stuck.resultFile('t1'))).toBe(false);
    process.kill(-(subprocess.pid as number), 'SIGTERM');
    expect((await subprocess).signal).toBe('SIGTERM');
    expect(stuck.readLedger()).toEqual([]);
  });

  it('prints 100,000 lines and then its result as a fenced json block', async () => {
    const chatty = project('exec-chatty-stdout-result.json');
    const run = await runSim(chatty, { stage: 'team-exec', task: 't1' });
    const lines = String(run.stdout).split('\n');
    expect(lines.filter((line) => line.startsWith('sim t1 line '))).toHaveLength(100_000);
    expect(lines).toContain('sim t1 line 100000');
    const fenced = /```json\n([\s\S]*?)\n```\s*$/.exec(String(run.stdout));
    expect(JSON.parse(fenced?.[1] ?? '')).toMatchObject({ status: 'completed', artifacts: ['sim-output/t1.txt'] });
  });

  it('writes a heartbeat file beside the result file while it works', async () => {
    const slow = project({ stages: { 'team-exec': { sleepMs: 1200, heartbeatMs: 100 } } });
    const subprocess = runSim(slow, { stage: 'team-exec', task: 't1' });
    const heartbeat = join(dirname(slow.resultFile('t1')), 'heartbeat');
    await waitForOutput(subprocess, /started by/);
    // Two different beats while it works (each names its time): read until then or until it ends,
    // not after a fixed wait a busy machine outlasts. A read between a beat's truncate and its write is empty.
    let ended = false;
    void subprocess.finally(() => (ended = true)).catch(() => undefined);
    const beats = new Set<string>();
    while (!ended && beats.size < 2) {
      const text = readFileSync(heartbeat, 'utf8');
      if (text !== '') beats.add(text);
      await sleep(20);
    }
    expect([...beats], 'the heartbeat never changed while the sim worked').toHaveLength(2);
    expect((await subprocess).exitCode).toBe(0);
  });

  it('keeps every ledger line whole when many sims finish at once', async () => {
    const busy = project({ plan: { count: 12 } });
    const tasks = Array.from({ length: 12 }, (_, i) => `t${i + 1}`);
    const runs = await Promise.all(tasks.map((task, i) => runSim(busy, { stage: 'team-exec', task, worker: `worker-${i}` })));
    expect(runs.map((run) => run.exitCode)).toEqual(tasks.map(() => 0));
    const ledger = busy.readLedger();
    expect(ledger.map((entry) => entry.task).sort()).toEqual([...tasks].sort());
    expect(new Set(ledger.map((entry) => entry.pid)).size).toBe(12);
  });
});
