// The session that starts a run: TEAM_SESSION, else the id the host agent CLI exports to its shell.
import { LIMITS, validateText } from '../../log/guards.js';

// Host CLIs that export their own session id to the commands their shell tool runs:
// Claude Code (2.1.132 and later) and Codex (its thread id).
const HOST_SESSION_VARS: Array<{ name: string; host: string }> = [
  { name: 'CLAUDE_CODE_SESSION_ID', host: 'claude-code' },
  { name: 'CODEX_THREAD_ID', host: 'codex' },
];

// `session` and `parent_session` of a new run, from the environment; a host id is prefixed with its CLI.
export function readSessionIds(env: NodeJS.ProcessEnv = process.env): { session: string; parent_session: string } {
  let session = env.TEAM_SESSION ?? '';
  if (session === '') {
    const host = HOST_SESSION_VARS.find((v) => (env[v.name] ?? '') !== '');
    if (host) session = `${host.host}:${env[host.name]}`;
  }
  return {
    session: validateText(session, 'TEAM_SESSION', LIMITS.by),
    parent_session: validateText(env.TEAM_PARENT_SESSION ?? '', 'TEAM_PARENT_SESSION', LIMITS.by),
  };
}
