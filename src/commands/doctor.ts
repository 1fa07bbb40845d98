// `team doctor [--cwd DIR] [--config FILE] [--store postgres://…] [--json]`: checks what a run needs
// and says what to fix, one line per check (ok, FAIL, warn, or -- for information), with the fix
// beside each one that does not pass. It looks at: Node (20.5 or later), git, tmux (only --tmux
// needs it), each agent CLI (claude, codex, gemini, opencode, aider) found on PATH with its version
// and, from its credential files and API-key variables (never the network), whether it is logged
// in; `team` on the PATH and on a login shell's (`bash -lc`, as Codex runs commands); the command
// files `team init` installs, present and current; `.team/` ignored by git; the config valid; and,
// with --store or team.store, the database reachable.
// Options: --cwd DIR the project (default: the current folder); --config FILE the config instead of
// .team/config.json; --store URL the PostgreSQL store to reach (default: team.store of the config);
// --json the checks as one JSON object ({ ok, checks: [{ name, status, detail, fix? }] }).
// Exit: 0 when every required check passes (no FAIL line), 1 otherwise, 2 for bad input. Required:
// Node, git, team on PATH, the config, .team/ ignored in a git repository, current command files
// where installed, the store when one is named, and an agent to run (a CLI on PATH or one named in
// the config); each agent CLI not found is information.
import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { EXIT } from '../sys/errors.js';
import { storeUrlOf } from '../store/store-url.js';
import { optionalString, parseFlags } from './args/args.js';
import { checkAgentClis } from './doctor/agents.js';
import { checkConfig, checkFence, checkNode, checkStore, checkTeamIgnored, checkTeamOnPath, checkTool, whichOnPath, type Check } from './doctor/checks.js';
import { probeFence } from '../../workers/fence.js';
import { checkCommandFiles } from './doctor/files.js';
import { FLAGS } from './args/flags.js';
import { openProjectDir } from './args/project-dir.js';
import { terminalText } from '../sys/terminal-text.js';

const LABEL: Record<Check['status'], string> = { ok: 'ok  ', fail: 'FAIL', warn: 'warn', info: '--  ' };

// Runs every check, prints them, and returns 0 when none failed.
export async function doctorCommand(argv: string[]): Promise<number> {
  const args = parseFlags(argv, FLAGS.doctor, 'team doctor');
  const projectDir = openProjectDir(args);
  const env = process.env;
  const which = whichOnPath(env, isExecutable);
  const config = checkConfig(projectDir, optionalString(args, 'config'));
  const storeUrl = config.loaded ? storeUrlOf(optionalString(args, 'store'), config.loaded.config) : optionalString(args, 'store');
  const [git, tmux, agents, team, ignored, store] = await Promise.all([
    checkTool('git', env),
    checkTool('tmux', env),
    checkAgentClis(env, (name) => which(name) !== undefined, Object.keys(config.loaded?.config.agents ?? {})),
    checkTeamOnPath(env, which),
    checkTeamIgnored(projectDir, env),
    storeUrl === undefined ? undefined : checkStore(storeUrl),
  ]);
  const fence = checkFence(config.loaded?.config.team.fence ?? 'auto', () => probeFence(env.PATH));
  const checks = [checkNode(), git, tmux, fence, ...agents, ...team, ...checkCommandFiles(projectDir, env.HOME ?? homedir()), ignored, config.check, ...(store ? [store] : [])];
  const ok = checks.every((check) => check.status !== 'fail');
  if (args.values.json === true) process.stdout.write(`${JSON.stringify({ ok, checks })}\n`);
  else process.stdout.write(`${terminalText(checks.map(formatCheck).join('\n'))}\n${ok ? 'team doctor: every required check passes' : `team doctor: ${checks.filter((c) => c.status === 'fail').length} required check(s) fail`}\n`);
  return ok ? EXIT.completed : EXIT.failed;
}

function formatCheck(check: Check): string {
  return `${LABEL[check.status]}  ${check.name}: ${check.detail}${check.fix && check.status !== 'ok' ? ` — fix: ${check.fix}` : ''}`;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
