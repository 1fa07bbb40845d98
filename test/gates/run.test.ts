import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runGate } from '../../src/gates/run.js';
import type { WorkerHandle } from '../../workers/types.js';

const folders: string[] = [];

afterEach(() => folders.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

// Blocks this thread, as a slow log write would.
const block = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe('runtime/gate-run', () => {
  it('runs nothing of a gate before its process group is recorded, and gives the command an empty stdin', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'teamline-gate-run-'));
    folders.push(dir);
    const ran = join(dir, 'ran');
    const recorded: WorkerHandle[] = [];
    const record = async (group: WorkerHandle) => {
      // Time enough for an unheld gate to have run its command by now.
      block(300);
      expect(existsSync(ran)).toBe(false);
      recorded.push(group);
    };

    const run = await runGate(`cat > "${ran}"; echo done`, { cwd: dir, outputFile: join(dir, 'gate.log'), timeoutMs: 60_000, signal: new AbortController().signal, tailChars: 100, record });

    expect(run).toMatchObject({ exitCode: 0, timedOut: false, cancelled: false, tail: 'done\n' });
    expect(readFileSync(ran, 'utf8')).toBe('');
    expect(recorded).toHaveLength(1);
    const [group] = recorded;
    expect(group).toMatchObject({ backend: 'process', pgid: group!.pid });
    expect(group!.pidStart).toBeGreaterThan(0);
  });
});
