// The outer agent's turns (issue 40): `/team` inside an agent starts the run detached and follows it
// with `team wait --timeout`, as the command file says (src/commands/init/texts.ts); every command
// it runs is one model turn of the outer agent, and what the commands print is what it reads. This
// bench is that agent, scripted: it starts a run of the sim agent (a git repository, 2 workers, exec
// attempts that take a few seconds each), then runs each `next:` command a wait prints until the run
// ended. Scaled: a run of about 40 s followed with --timeout 6 stands for a 10-minute run followed
// with --timeout 100 (the command files' WAIT_S).
//
// Rows: the turns against those of waits that return only at their timeout or the run's end (the
// run's duration / the timeout, plus the start and the report: a wait that returned for every
// event or every stage would be over); and the text the outer agent read from every command against
// a budget of 2,000 tokens (8,000 chars at about 4 a token).
import { execa } from 'execa';
import type { Comparison } from './parts/compare.js';
import { makeScratchRepo } from './parts/scratch.js';
import { TEAM_BIN } from '../src/sys/team-bin.js';

const CLI = TEAM_BIN;
const TIMEOUT_S = 6;
const TEXT_BUDGET = 8_000;

export async function benchOuterTurns(): Promise<Comparison[]> {
  const { dir, env } = makeScratchRepo('teamline-bench-outer-', {
    'README.md': '# outer turns\n',
    // Four tasks of 14 s each on two workers: about 28 s of exec, the other stages a few seconds each.
    'scenario.json': JSON.stringify({ plan: { count: 4 }, defaults: { sleepMs: 1500 }, stages: { 'team-exec': { sleepMs: 14000, heartbeatMs: 1000 } } }),
    '.team/config.json': JSON.stringify({ agents: { sim: { adapter: 'sim', scenario: 'scenario.json' } } }),
  });
  const team = (...args: string[]) => execa(process.execPath, [CLI, ...args], { cwd: dir, env, reject: false, stdin: 'ignore' });

  let turns = 1;
  let read = 0;
  const started = await team('2:executor', 'add input validation to the API and document it', '--agent', 'sim', '--detach');
  read += started.stdout.length + started.stderr.length;
  const runId = /teamline run (\S+) runs detached/.exec(started.stdout)?.[1];
  if (started.exitCode !== 0 || runId === undefined) throw new Error(`the outer-turns run did not start (exit ${started.exitCode}): ${started.stderr}`);
  const since = Date.now();
  let next: string[] = ['wait', '--run', runId, '--timeout', String(TIMEOUT_S)];
  for (;;) {
    const waited = await team(...next);
    turns += 1;
    read += waited.stdout.length + waited.stderr.length;
    if (waited.exitCode !== 5) {
      if (waited.exitCode !== 0) throw new Error(`the outer-turns run ended with exit ${waited.exitCode}: ${waited.stdout}`);
      break;
    }
    const line = /^\s*next: team (wait [^(\n]*?)\s*(?:\(|$)/m.exec(waited.stdout)?.[1];
    if (line === undefined) throw new Error(`a wait that returned still running printed no next: command: ${waited.stdout}`);
    next = line.split(/\s+/);
    if (turns > 500) throw new Error('the outer-turns run did not end after 500 waits');
  }
  // The report is the turn that reads the last wait.
  turns += 1;
  const seconds = (Date.now() - since) / 1000;
  const expected = 2 + Math.ceil(seconds / TIMEOUT_S);
  return [
    { name: 'outer turns', detail: `/team in an agent: a ${seconds.toFixed(0)} s run followed with --timeout ${TIMEOUT_S} (as 10 minutes with --timeout 100: about 8 turns), against a wait per timeout`, ms: turns, baselineMs: expected, target: 1, unit: 'turns' },
    { name: 'outer text', detail: `what the outer agent read from its ${turns - 1} team commands of that run, against a budget of 2,000 tokens`, ms: read, baselineMs: TEXT_BUDGET, target: 1, unit: 'chars' },
  ];
}
