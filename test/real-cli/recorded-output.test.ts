// The adapters read what the real CLIs printed in the real-CLI runs (test/fixtures/cli/<cli>/real-*.txt,
// recorded with TEAMLINE_RECORD_FIXTURES=1): no CLI needed to run these.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_ADAPTERS } from '../../workers/adapters/index.js';
import { ROOT } from '../helpers/team.js';
import { USAGE } from './model-server/turn.js';

const FIXTURES = join(ROOT, 'test/fixtures/cli');
const CLIS = ['claude', 'codex', 'gemini', 'opencode'] as const;

// Model calls of each recorded attempt of the scripted run: its tool calls, then the final text.
const MODEL_CALLS: Record<string, number> = { plan: 2, t1: 3, t2: 3, 'verify-1': 3, 'fix-1-d1': 3, 'verify-2': 3 };

// What each real API answers to a bad key (model-server/*.ts rejectKey), as the CLI passes it on.
const BAD_KEY_TEXT: Record<(typeof CLIS)[number], RegExp> = {
  claude: /invalid x-api-key|API key|401/i,
  codex: /Incorrect API key provided/,
  gemini: /API key not valid/,
  opencode: /Incorrect API key provided/,
};

// How each CLI refused the write of an exec attempt's result file outside its worktree (recorded
// before the adapters granted the attempt folder), as each adapter reports it; claude, codex and
// gemini went on to give a fenced answer, opencode's session stopped.
const REFUSED: Record<(typeof CLIS)[number], { ok: boolean; reason: RegExp }> = {
  claude: { ok: true, reason: /^claude refused the write to \/\S+\/attempts\/t1\/a1\/result\.json: Claude requested permissions to write to \/\S+\/result\.json, but you haven't granted it yet\.; check / },
  codex: { ok: true, reason: /^codex refused the apply_patch call: patch rejected: writing outside of the project; rejected by user approval settings; check / },
  gemini: { ok: true, reason: /^gemini refused the write to \/\S+\/attempts\/t1\/a1\/result\.json: Path not in workspace: Attempted path "\/\S+\/result\.json" resolves outside the allowed workspace directories: / },
  opencode: { ok: false, reason: /^opencode refused the write to \/\S+\/attempts\/t1\/a1\/result\.json: permission requested: external_directory \(\/\S+\/attempts\/t1\/a1\/\*\); auto-rejecting; allow it / },
};

// When the model server's spent quota resets (2031-01-01 15:00 UTC), as each CLI said it.
const QUOTA_RESETS: Partial<Record<(typeof CLIS)[number], string>> = { claude: 'Jan 1, 2031, 3pm (UTC)', codex: 'at Jan 1st, 2031 3:00 PM' };

function recorded(cli: string, prefix: string): string[] {
  const dir = join(FIXTURES, cli);
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.startsWith(prefix)).sort() : [];
}

describe('recorded output of the real CLIs', () => {
  describe.each(CLIS)('%s', (cli) => {
    const adapter = CLI_ADAPTERS[cli];

    it('has recorded runs to read', () => {
      expect(recorded(cli, 'real-run-').length).toBeGreaterThan(0);
    });

    it.each(recorded(cli, 'real-run-'))('reads %s as a success with its session id and the tokens of every model call', (name) => {
      const report = adapter.parse(readFileSync(join(FIXTURES, cli, name), 'utf8'));
      expect(report.error).toBeUndefined();
      expect(report.ok).toBe(true);
      expect(report.sessionId).toMatch(/\S{8,}/);
      expect(report.finalText).toContain('Done:');
      // Nothing was refused, but the planner's write (it may only read: claude's dontAsk mode and
      // codex's read-only sandbox refuse it; gemini's plan mode and opencode offer no write tool).
      if (name === 'real-run-plan.txt' && (cli === 'claude' || cli === 'codex')) expect(report.refused?.reason).toMatch(new RegExp(`^${cli} refused the (write to|apply_patch call)`));
      else expect(report.refused).toBeUndefined();
      const calls = MODEL_CALLS[name.replace(/^real-run-|\.txt$/g, '')]!;
      // gemini also counts the calls of its model router in its stats.
      if (cli === 'gemini') expect(report.tokens!.output).toBeGreaterThanOrEqual(calls * USAGE.output);
      else expect({ input: report.tokens!.input, output: report.tokens!.output }).toEqual({ input: calls * USAGE.input, output: calls * USAGE.output });
      // What the prompt cache served is part of the input, never more.
      expect(report.tokens!.cached ?? 0).toBeLessThanOrEqual(report.tokens!.input);
    });

    // A spent quota (model-server QUOTA_KEY: claude logged in to a plan, codex's usage_limit_reached):
    // no rate limit, and when it resets in the CLI's words.
    it.each(recorded(cli, 'real-quota-'))('reads %s as a spent quota that names its reset, no rate limit', (name) => {
      const report = adapter.parse(readFileSync(join(FIXTURES, cli, name), 'utf8'));
      expect(report.ok).toBe(false);
      expect(report.rateLimit).toBeUndefined();
      expect(report.failure).toMatchObject({ kind: 'quota', retryable: false, resets: QUOTA_RESETS[cli] });
    });

    it('has a recorded refusal to read', () => {
      expect(recorded(cli, 'real-refused-').length).toBeGreaterThan(0);
    });

    it.each(recorded(cli, 'real-refused-'))('reads %s as a refused write of the result file, a failure no retry fixes', (name) => {
      const report = adapter.parse(readFileSync(join(FIXTURES, cli, name), 'utf8'));
      expect(report.ok).toBe(REFUSED[cli].ok);
      expect(report.refused).toMatchObject({ kind: 'permission-refused', retryable: false });
      expect(report.refused?.reason).toMatch(REFUSED[cli].reason);
      // opencode's session stopped at the refusal: that is the error, not a missing final step.
      if (!report.ok) expect(report.error).toBe(report.refused?.reason);
    });

    it.each(recorded(cli, 'real-bad-key-'))('reads %s as a failure that is not retried, with the API\'s words', (name) => {
      const report = adapter.parse(readFileSync(join(FIXTURES, cli, name), 'utf8'));
      expect(report.ok).toBe(false);
      expect(`${report.error}`).toMatch(BAD_KEY_TEXT[cli]);
      expect(report.failure?.kind).toBe('bad-key');
    });
  });

  // What each CLI printed when the model server refused every call as past a rate limit (429) or
  // overloaded (gemini 503, opencode 529), after its own retries: gemini with general.maxAttempts 1
  // and a named model, opencode after its 5 retries (suite.ts). The wait is the one the CLI passed on.
  const LIMITED: Partial<Record<(typeof CLIS)[number], Record<string, { status: RegExp; retryAfterMs: number | undefined }>>> = {
    gemini: { 'real-rate-limit-plan.txt': { status: /HTTP 429/, retryAfterMs: 1_000 }, 'real-overload-plan.txt': { status: /HTTP 503/, retryAfterMs: undefined } },
    opencode: { 'real-rate-limit-plan.txt': { status: /HTTP 429/, retryAfterMs: 200 }, 'real-overload-plan.txt': { status: /HTTP 529/, retryAfterMs: 1_000 } },
  };

  describe.each(Object.entries(LIMITED))('%s rate limits', (cli, files) => {
    const adapter = CLI_ADAPTERS[cli as keyof typeof CLI_ADAPTERS];
    const read = (name: string) => readFileSync(join(FIXTURES, cli, name), 'utf8');

    it.each(Object.entries(files!))('reads %s as a rate limit with its wait, no failure', (name, expected) => {
      const report = adapter.parse(read(name));
      expect(report.ok).toBe(false);
      expect(report.failure).toBeUndefined();
      expect(report.rateLimit?.reason).toMatch(expected.status);
      expect(report.rateLimit?.retryAfterMs).toBe(expected.retryAfterMs);
      // Nor does the watchdog take the error event for a fatal failure.
      expect(adapter.scan?.(read(name).split('\n')).failure).toBeUndefined();
    });

    // The same 429 with the words of a spent balance (gemini's TerminalQuotaError, OpenAI's insufficient_quota).
    it('reads a spent balance in the same shape as quota, no rate limit', () => {
      const spent = cli === 'gemini'
        ? read('real-rate-limit-plan.txt').replace(/Resource has been exhausted \(e\.g\. check quota\)\./g, 'You have exhausted your daily quota on this model.')
        : read('real-rate-limit-plan.txt').replace(/Rate limit reached\. Please try again in 1s\./g, 'You exceeded your current quota, please check your plan and billing details.').replace(/rate_limit_exceeded/g, 'insufficient_quota');
      const report = adapter.parse(spent);
      expect(report.rateLimit).toBeUndefined();
      expect(report.failure?.kind).toBe('quota');
    });
  });

  describe('gemini', () => {
    // Cut from gemini's stderr while its auto mode retried a 429 (no --model: 3 attempts on the
    // first model of its chain, then 10 on the next, then around again): stopped there, it printed
    // no JSON result, only its retry notices.
    const retrying = readFileSync(join(FIXTURES, 'gemini', 'real-retrying-plan.txt'), 'utf8');

    it('reads the retry notices of an attempt stopped while gemini retried as a rate limit with the API\'s suggested wait', () => {
      const report = CLI_ADAPTERS.gemini.parse(retrying);
      expect(report.noRecord).toBe(true);
      expect(report.rateLimit?.reason).toMatch(/^gemini was retrying: Attempt 3 failed: Resource has been exhausted/);
      expect(report.rateLimit?.retryAfterMs).toBe(1_000);
    });

    it('takes its retry notices for no progress', () => {
      const notices = retrying.split('\n').filter((line) => !/^(Warning|Ripgrep)/.test(line));
      expect(CLI_ADAPTERS.gemini.scan?.(notices).progress).toBe(false);
    });
  });

  describe('claude', () => {
    it('reads the Write refused to a planner that may only read as a denial, its result taken from the text', () => {
      const output = readFileSync(join(FIXTURES, 'claude', 'real-run-plan.txt'), 'utf8');
      const report = CLI_ADAPTERS.claude.parse(output);
      expect(report.ok).toBe(true);
      expect(report.denials).toEqual([expect.stringMatching(/^Write: \/.*\/attempts\/plan\/a1\/result\.json$/)]);
      expect(report.finalText).toContain('```json');
      expect(report.refused?.reason).toMatch(/^claude refused the write to \/\S+\/attempts\/plan\/a1\/result\.json: Permission to use Write has been denied because Claude Code is running in don't ask mode\./);
    });
  });
});
