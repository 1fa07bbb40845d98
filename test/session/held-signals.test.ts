// Signals that come while a run is being taken over are held, not fatal, and heard in order once
// the run listens; after that the process answers signals as before. A real child process.
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/team.js';

const HOLD = join(ROOT, 'dist/src/session/held-signals.js');

// A node process that holds the cancel signals, says so, and after `releaseAfterMs` prints what came and releases them.
function startHolder(releaseAfterMs: number) {
  const script = `const { holdCancelSignals } = await import(${JSON.stringify(HOLD)});
const held = holdCancelSignals();
process.stdout.write('holding\\n');
setTimeout(() => { process.stdout.write(JSON.stringify(held.release()) + '\\n'); setTimeout(() => undefined, 5000); }, ${releaseAfterMs});`;
  return execa(process.execPath, ['--input-type=module', '-e', script], { reject: false, stdin: 'ignore', timeout: 20_000 });
}

// Resolves once the child has printed `line`.
function printed(child: ReturnType<typeof startHolder>, line: string): Promise<void> {
  return new Promise((resolve) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.split('\n').includes(line)) resolve();
    });
  });
}

describe('cancel/hold', () => {
  it('holds SIGTERM and SIGINT while holding, gives them in order, then lets a signal end the process again', async () => {
    const child = startHolder(1_000);
    await printed(child, 'holding');
    process.kill(child.pid!, 'SIGTERM');
    await sleep(100);
    process.kill(child.pid!, 'SIGINT');
    await printed(child, '["SIGTERM","SIGINT"]');
    process.kill(child.pid!, 'SIGTERM');
    const result = await child;
    expect(result.signal).toBe('SIGTERM');
    expect(String(result.stdout)).toBe('holding\n["SIGTERM","SIGINT"]');
  });
});
