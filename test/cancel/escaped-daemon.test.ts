// A worker that double-forks a daemon with setsid: the daemon left the worker's process group, yet
// it carries the attempt's marker (TEAM_RUN_ID, TEAM_TASK_ID, TEAM_ATTEMPT) and ends with it.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI } from '../helpers/team.js';
import { waitFor } from '../helpers/wait-event.js';

const dirs: string[] = [];
// Starts `setsid sleep` in the background (its pid in daemon.pid), then writes its result.
const SCRIPT = [
  'setsid sh -c \'echo $$ > "$TEAM_PROJECT_DIR/daemon.pid"; exec sleep 300\' </dev/null >/dev/null 2>&1 &',
  'while [ ! -s "$TEAM_PROJECT_DIR/daemon.pid" ]; do sleep 0.05; done',
  'if [ -n "$HOLD" ]; then while [ ! -e "$TEAM_PROJECT_DIR/release" ]; do sleep 0.05; done; fi',
  // BREAK_LOG: the run's events folder is moved away and a file put in its place, so that the
  // attempt's end cannot be recorded.
  'if [ -n "$BREAK_LOG" ]; then ev="$TEAM_PROJECT_DIR/.team/runs/$TEAM_RUN_ID/events"; mv "$ev" "$ev.moved" && : > "$ev"; fi',
  'printf \'%s\\n\' \'{"status":"completed","summary":"daemon started","artifacts":[],"evidence":"ok","next":""}\' > "$TEAM_RESULT_FILE"',
].join('\n');

function project(hold: boolean, env: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-escape-'));
  dirs.push(dir);
  mkdirSync(join(dir, '.team'));
  const daemon = { adapter: 'command', command: 'sh', args: ['-c', SCRIPT], env: { ...(hold ? { HOLD: '1' } : {}), ...env } };
  writeFileSync(join(dir, '.team', 'config.json'), JSON.stringify({ agents: { daemon }, roles: { planner: 'sim', analyst: 'sim', verifier: 'sim', architect: 'sim', executor: 'daemon', debugger: 'daemon' } }));
  return dir;
}

const alive = (pid: number) => {
  try {
    return !/^\S+ \S+ Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/\(.*\)/, 'x'));
  } catch {
    return false;
  }
};
const daemonPid = (dir: string) => Number(readFileSync(join(dir, 'daemon.pid'), 'utf8'));

describe('escaped descendants (setsid)', () => {
  afterEach(() => {
    for (const dir of dirs.splice(0)) {
      try {
        // Only the daemon itself (`sleep 300`, the run's marker in its environment): a daemon the
        // run stopped may have left its pid to another process by now (pid_max can be 32768).
        const pid = daemonPid(dir);
        const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
        if (pid > 1 && readFileSync(`/proc/${pid}/cmdline`, 'utf8') === 'sleep\u0000300\u0000' && environ.includes(`TEAM_PROJECT_DIR=${dir}`)) process.kill(pid, 'SIGKILL');
      } catch {
        // Stopped by the run, as it should be.
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops a daemon a worker started with setsid when the attempt ends', { timeout: 240_000 }, async () => {
    const dir = project(false);
    const run = await execa('node', [CLI, '1:executor', 'start a daemon', '--cwd', dir], { reject: false, env: { TMUX: undefined } });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(alive(daemonPid(dir))).toBe(false);
  });

  it('stops a daemon a worker started with setsid when the run is cancelled', { timeout: 240_000 }, async () => {
    const dir = project(true);
    const running = execa('node', [CLI, '1:executor', 'start a daemon', '--cwd', dir], { reject: false, env: { TMUX: undefined } });
    await waitFor('the daemon', () => {
      try {
        return daemonPid(dir) > 0;
      } catch {
        return false;
      }
    });
    const cancel = await execa('node', [CLI, 'cancel', '--force', '--cwd', dir], { reject: false });
    expect(cancel.exitCode, cancel.stderr).toBe(0);
    await running;
    expect(alive(daemonPid(dir))).toBe(false);
  });

  // The attempt's end cannot be recorded (the log broke, and the run stops there): its daemon is
  // stopped all the same, before the orchestrator exits, and what was recorded is still there.
  it('stops a daemon of an attempt whose end could not be recorded', { timeout: 240_000 }, async () => {
    const dir = project(false, { BREAK_LOG: '1' });
    const run = await execa('node', [CLI, '1:executor', 'start a daemon', '--cwd', dir], { reject: false, env: { TMUX: undefined } });
    expect(run.exitCode, run.stderr).not.toBe(0);
    expect(run.stderr).toMatch(/events/);
    expect(alive(daemonPid(dir))).toBe(false);
    const runId = readFileSync(join(dir, '.team', 'runs', 'current'), 'utf8').trim();
    expect(readdirSync(join(dir, '.team', 'runs', runId, 'events.moved')).some((name) => name.includes('-run_started-'))).toBe(true);
  });
});
