// Failures no retry can fix, told from a CLI's own words: which kind, and what the user must do.
import type { AgentFailure, FailureKind } from '../types.js';

// A pattern of the CLI's error text and the kind of failure it means.
export type FailureRule = [pattern: RegExp, kind: FailureKind];

// What each kind is, in words.
const CAUSES: Record<FailureKind, string> = {
  'not-logged-in': 'not logged in',
  'bad-key': 'the API key was refused',
  quota: 'quota or billing limit reached',
  'unknown-model': 'the model is unknown or not available',
  'missing-provider': 'no model provider is configured',
  'permission-refused': 'a permission was refused',
};

// What to do, per CLI and kind; `*` is any CLI.
const REMEDIES: Record<string, Partial<Record<FailureKind, string>>> = {
  claude: {
    'not-logged-in': 'run `claude /login`, or set ANTHROPIC_API_KEY',
    'bad-key': 'check ANTHROPIC_API_KEY (or unset it and run `claude /login`)',
    'permission-refused': 'check agents.<name>.permissions and permissionMode, and the deny rules of claude\'s settings',
  },
  codex: {
    'not-logged-in': 'run `codex login`, or set OPENAI_API_KEY (`codex login --with-api-key`)',
    'bad-key': 'check OPENAI_API_KEY, or run `codex login` again',
    'permission-refused': 'check agents.<name>.permissions and permissionMode (the sandbox), and sandbox_workspace_write in codex\'s config.toml',
  },
  gemini: {
    'not-logged-in': 'set GEMINI_API_KEY, or run `gemini` once to log in',
    'bad-key': 'check GEMINI_API_KEY (or GOOGLE_API_KEY)',
    'permission-refused': 'check agents.<name>.permissions and permissionMode, and the tools and policies of gemini\'s settings',
  },
  opencode: {
    'not-logged-in': 'run `opencode auth login`, or set the provider\'s API key variable',
    'bad-key': 'check the provider\'s API key (`opencode auth login`, or its env variable)',
    'missing-provider': 'configure a provider in opencode.json and name it in agents.<name>.model as provider/model',
    'permission-refused': 'allow it in the `permission` of opencode.json (external_directory, edit, bash), or check OPENCODE_PERMISSION in agents.<name>.env',
  },
  aider: {
    'not-logged-in': 'set the model\'s API key variable (ANTHROPIC_API_KEY, OPENAI_API_KEY, ...)',
    'bad-key': 'check the model\'s API key variable (ANTHROPIC_API_KEY, OPENAI_API_KEY, ...)',
  },
  '*': {
    quota: 'check the account\'s plan and billing, or wait for the limit to reset',
    'unknown-model': 'fix `model` of this agent in .team/config.json',
    'missing-provider': 'configure the CLI\'s model provider',
    'permission-refused': 'let the CLI do it (its permission settings), or change agents.<name>.permissions',
  },
};

// The first rule a text matches, as a not-retryable failure of `cli`; undefined when none does.
export function classifyFailure(cli: string, said: string | undefined, rules: FailureRule[]): AgentFailure | undefined {
  if (said === undefined) return undefined;
  const kind = rules.find(([pattern]) => pattern.test(said))?.[1];
  return kind === undefined ? undefined : makeFailure(cli, kind, said);
}

// "claude: the API key was refused (Invalid API key); check ANTHROPIC_API_KEY ...".
export function makeFailure(cli: string, kind: FailureKind, said: string): AgentFailure {
  const remedy = REMEDIES[cli]?.[kind] ?? REMEDIES['*']![kind] ?? 'fix the CLI\'s setup';
  const quote = said.replace(/\s+/g, ' ').trim().slice(0, 300);
  const resets = kind === 'quota' ? readQuotaReset(quote) : undefined;
  return { kind, retryable: false, reason: `${cli}: ${CAUSES[kind]} (${quote}); ${remedy}`, ...(resets !== undefined && { resets }) };
}

// When a spent quota comes back, in the CLI's words: claude's "You've hit your session limit ·
// resets Jan 1, 2031, 3pm (UTC)", codex's "You've hit your usage limit. … Try again at Jan 1st, 2031 3:00 PM.", gemini's
// "… Please retry in 2h3m4s".
const RESETS = /\b(?:resets?|try again|retry)\s+((?:at|in|on|after)\s+)?((?:\([^)\n]{0,20}\)|.){1,60}?)(?=\s*(?:[·;)"\n]|\.(?:\s|$)|$))/i;

export function readQuotaReset(said: string): string | undefined {
  const match = RESETS.exec(said);
  if (!match) return undefined;
  const when = match[2]!.replace(/[\s,]+$/, '').slice(0, 60);
  return /\d/.test(when) ? `${match[1] ?? ''}${when}`.trim() : undefined;
}

// "opencode refused the write to /p/result.json: <its words>; <remedy>": a refused permission, which
// no retry changes. `what` names the tool call ("the write to <path>", "the command <command>").
export function refusedPermission(cli: string, what: string, said: string): AgentFailure {
  const remedy = REMEDIES[cli]?.['permission-refused'] ?? REMEDIES['*']!['permission-refused']!;
  const quote = said.replace(/\s+/g, ' ').trim().slice(0, 300);
  return { kind: 'permission-refused', retryable: false, reason: `${cli} refused ${what}: ${quote}; ${remedy}` };
}

// "the write to /p/result.json", "the command npm test": a tool call by its CLI's tool name and input.
export function describeToolCall(tool: string, path: string | undefined, command: string | undefined): string {
  const name = tool.toLowerCase();
  if (/bash|shell|exec/.test(name)) return command === undefined ? `the ${tool} call` : `the command ${command}`;
  if (path === undefined) return `the ${tool} call`;
  if (/write|patch/.test(name)) return `the write to ${path}`;
  if (/edit|replace/.test(name)) return `the edit of ${path}`;
  if (/read/.test(name)) return `the read of ${path}`;
  return `the ${tool} call on ${path}`;
}
