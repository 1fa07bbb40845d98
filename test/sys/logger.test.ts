// The run's logger never crashes the process: a line that cannot be written (/dev/full, a full
// disk) is lost with one notice on stderr. A run whose disk fills up ends with the reason on stderr
// and exit 1 (README), not a stack trace or a hang: a real tmpfs filled to the last byte (root only).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeRunLogger } from '../../src/sys/logger.js';
import { cleanUpCancelProjects, makeCancelProject } from '../helpers/cancel-run.js';
import { waitFor } from '../helpers/wait-event.js';

const asRoot = process.getuid?.() === 0;
const mounts: string[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await cleanUpCancelProjects();
  for (const dir of mounts.splice(0)) {
    execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

// A new tmpfs of `size` bytes, unmounted after the test.
function mountTmpfs(size: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  mounts.push(dir);
  return dir;
}

describe('sys/logger', () => {
  it('absorbs a write that fails, says so once on stderr, and stays quiet after', () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const log = makeRunLogger('/dev/full');
    expect(() => {
      log.error({ err: new Error('the disk is full') }, 'the event log cannot be written');
      log.info('one more line');
    }).not.toThrow();
    expect(stderr.mock.calls.map(([text]) => String(text))).toEqual(["team: the run's log /dev/full cannot be written (ENOSPC); its lines are lost from here\n"]);
  });

  it.skipIf(!asRoot)('a run whose disk fills up stops with the reason on stderr and exit 1, its workers stopped', async () => {
    const disk = mountTmpfs(512 * 1024);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = disk;
    const project = makeCancelProject({ scenario: 'cancel-one-hang.json', graceMs: 500 });
    // Unset when it was (assigning undefined would set the word "undefined").
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    const run = project.start('1:executor', 'a run on a disk that fills up');
    const runId = await project.waitForWorkers(['t1']);
    // Fill the disk to its last byte (dd ends with ENOSPC), then ask the run to stop: it must write to stop.
    execFileSync('sh', ['-c', 'dd if=/dev/zero of="$1" bs=4k 2>/dev/null; true', 'sh', join(disk, 'filler')]);
    process.kill(run.pid, 'SIGTERM');
    const result = await Promise.race([run.exited, new Promise<undefined>((resolve) => setTimeout(resolve, 30_000))]);
    expect(result, 'the orchestrator did not end').toBeDefined();
    // The whole line, wherever it falls among the run's last lines (the attempt's end may come after
    // it, and a last line has no newline once read).
    expect(result!.stderr.split('\n')).toContain(`team: the event log of run ${runId} cannot be written (ENOSPC: no space left on device, write); the run stopped here and its workers were stopped; \`team resume --run ${runId}\` continues it once the log can be written`);
    expect(result!.stderr).not.toMatch(/^\s+at /m);
    expect(result!.exitCode).toBe(1);
    const [handle] = project.handles(runId);
    await waitFor('the worker to stop', () => !existsSync(`/proc/${handle!.pid}`), 10_000);
    expect(readdirSync(disk)).toContain('filler');
  }, 90_000);
});
