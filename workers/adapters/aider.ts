// Aider: `aider --message-file <prompt> --yes-always`. It prints no machine output, so the whole
// output is the final text; its "Tokens: ... Cost: ..." lines give tokens and cost.
import { join } from 'node:path';
import type { AdapterInput, AgentAdapter, AgentCommand, AgentReport } from '../types.js';
import { makeAgentCommand, makeReport } from './command-line.js';
import { classifyFailure, type FailureRule } from './failures.js';

// --message-file: one message from the prompt file, then exit (no argv length limit).
// --yes-always: the real flag behind the spec's `--yes` (argparse only accepts that as a prefix).
// --no-auto-commits: the runtime owns commits; per-attempt commits by parallel workers would
//   interleave in the user's history and could not be retried cleanly.
// --no-pretty: no colour codes in output.log. --no-check-update: no update prompt or download.
const FIXED_ARGS = ['--yes-always', '--no-auto-commits', '--no-pretty', '--no-check-update'];

// "Tokens: 2.4k sent, 1.2k cache write, 3k cache hit, 274 received." (cache parts optional).
const TOKENS_LINE = /^Tokens: ([\d.]+k?) sent(?:, [\d.]+k? cache write)?(?:, [\d.]+k? cache hit)?, ([\d.]+k?) received\./;

// "Cost: $0.01 message, $0.03 session." (the session figure is cumulative).
const COST_PART = /Cost: \$([\d.]+) message, \$([\d.]+) session\./;

// A litellm error as aider prints it ("litellm.AuthenticationError: AnthropicException - ...").
const LITELLM_ERROR = /^litellm\.\w+:/;

// A line that shows aider went on after an error (a retry, or a later model reply).
const WENT_ON = /^(Tokens: |Retrying in )/;

// The litellm errors no retry fixes (aider's documented exception names; aider is not installed
// here, so these follow its docs and aider/exceptions.py).
const RULES: FailureRule[] = [
  [/AuthenticationError|PermissionDeniedError/, 'bad-key'],
  [/NotFoundError/, 'unknown-model'],
  [/LLM Provider NOT provided|BadRequestError.*provider/i, 'missing-provider'],
  [/insufficient_quota|exceeded your current quota|credit balance|billing/i, 'quota'],
];

// Builds the one-shot call; aider has no turn, budget or shell permission flags: the `read`
// level adds --dry-run (no file is changed), `edit` and `run` let it edit with --yes-always.
function buildAider(input: AdapterInput): AgentCommand {
  const { agent } = input;
  const args = ['--message-file', input.promptFile, ...FIXED_ARGS];
  if (input.permission === 'read') args.push('--dry-run');
  if (agent.model !== undefined) args.push('--model', agent.model);
  return makeAgentCommand(agent, 'aider', args);
}

// ok with the whole output as final text, unless aider gave up on a model error (it exits 0
// either way); token counts are summed per reply, cost is the last session total.
function parseAider(output: string): AgentReport {
  const lines = output.split(/\r?\n/).map((line) => line.trim());
  let tokens: AgentReport['tokens'];
  let costUsd: number | undefined;
  for (const line of lines) {
    const counts = TOKENS_LINE.exec(line);
    if (counts) {
      tokens = {
        input: (tokens?.input ?? 0) + readTokenCount(counts[1]),
        output: (tokens?.output ?? 0) + readTokenCount(counts[2]),
      };
    }
    const cost = COST_PART.exec(line);
    if (cost) costUsd = Number(cost[2]);
  }
  const fatal = findFatalError(lines);
  return makeReport({ ok: fatal === undefined, finalText: output, costUsd, tokens, error: fatal, failure: classifyFailure('aider', fatal, RULES) });
}

// The last litellm error line when nothing after it shows aider carried on.
function findFatalError(lines: string[]): string | undefined {
  let at = lines.length - 1;
  while (at >= 0 && !LITELLM_ERROR.test(lines[at] ?? '')) at--;
  if (at === -1 || lines.slice(at + 1).some((line) => WENT_ON.test(line))) return undefined;
  return lines[at];
}

// "2.4k" -> 2400, "274" -> 274 (aider rounds counts of 1000 and more to k).
function readTokenCount(text: string | undefined): number {
  if (text === undefined) return 0;
  return text.endsWith('k') ? Math.round(Number(text.slice(0, -1)) * 1000) : Number(text);
}

// The aider adapter: a one-shot command line in, console text out.
export const aider: AgentAdapter = {
  facts: {
    byName: true,
    login: { env: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'OPENROUTER_API_KEY', 'DEEPSEEK_API_KEY'], files: () => [], how: 'set the API key of your model, such as ANTHROPIC_API_KEY' },
    // Its caches and analytics; its chat history and tags cache are in the project (the working folder).
    state: (_env, home) => ({ dirs: [join(home, '.aider')] }),
  },
  name: 'aider',
  build: buildAider,
  parse: parseAider,
};
