// The scripted model inside a session that ran teamline's own slash commands (`team init`): it
// reads the expanded command text and answers with the shell calls the text asks for — start the
// run (or ralph loop) with --detach, then `team wait`, each later call the exact `next:` command
// the previous one printed, until the run ends; /cancel runs `team cancel`, then `team status`.
import type { Step } from './scenario.js';

// What a slash command asked, from the text `team init` wrote.
export type SlashCommand = { kind: 'team' | 'ralph'; args: string } | { kind: 'cancel' };

// The first wait's --timeout: the text allows one smaller than its 100 s; the tests' runs are short.
export const FIRST_WAIT_S = 1;

const TEAM = /Run a teamline (team|ralph loop):[\s\S]*?Arguments: ([^\n]*)/;
const CANCEL = /Cancel a teamline run\. Arguments:/;
// Codex: the skill's text (injected when the user names it) and the user's `$team <request>`.
const SKILL = '# teamline from Codex';
const SKILL_REQUEST = /^\$team (.+)$/m;
// The line `team wait` ends its timeout summary with, and the command on it.
const NEXT = /^\s*next: (team wait [^\n(]*?) \(/m;

// The slash command among the strings of a request, if the session ran one.
export function readSlash(strings: Iterable<string>): SlashCommand | undefined {
  const texts = [...strings];
  if (texts.some((text) => text.includes(SKILL))) {
    const request = texts.map((text) => SKILL_REQUEST.exec(text)?.[1]).find((found) => found !== undefined)?.trim();
    if (request === 'cancel') return { kind: 'cancel' };
    if (request) return request.startsWith('ralph ') ? { kind: 'ralph', args: request.slice('ralph '.length) } : { kind: 'team', args: request };
  }
  for (const text of texts) {
    const team = TEAM.exec(text);
    // opencode hands the arguments over quoted ("2:executor create hello.txt").
    if (team) return { kind: team[1] === 'team' ? 'team' : 'ralph', args: team[2]!.trim().replace(/^"(.*)"$/, '$1') };
    if (CANCEL.test(text)) return { kind: 'cancel' };
  }
  return undefined;
}

// The next step after `outputs` (the shell outputs so far, as the CLI's shell tool showed them).
export function slashStep(command: SlashCommand, outputs: string[]): Step {
  if (command.kind === 'cancel') {
    if (outputs.length === 0) return { kind: 'run', command: 'team cancel' };
    if (outputs.length === 1) return { kind: 'run', command: 'team status' };
    return { kind: 'final', text: `Cancelled: ${outputs[0]}\nStatus: ${outputs[1]}` };
  }
  if (outputs.length === 0) {
    const [first, ...rest] = command.args.split(/\s+/);
    const team = /^\d+(:\S*)?$/.test(first ?? '') ? `${first} ` : '';
    const task = team ? rest.join(' ') : command.args;
    return { kind: 'run', command: `team ${command.kind === 'ralph' ? 'ralph ' : ''}${team}"${task}" --detach` };
  }
  const runId = /teamline run (\S+) runs detached/.exec(outputs[0]!)?.[1];
  if (!runId) return { kind: 'final', text: `The run did not start: ${outputs[0]}` };
  if (outputs.length === 1) return { kind: 'run', command: `team wait --run ${runId} --timeout ${FIRST_WAIT_S}` };
  const last = outputs.at(-1)!;
  if (!/is still running after/.test(last)) return { kind: 'final', text: `The team run ${runId} ended:\n${last}` };
  const next = NEXT.exec(last)?.[1];
  return next ? { kind: 'run', command: next } : { kind: 'final', text: `team wait printed no next command:\n${last}` };
}
