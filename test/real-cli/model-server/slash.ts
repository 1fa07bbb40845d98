// The scripted model inside a session that ran teamline's own slash commands (`team init`): it
// reads the expanded command text and answers with the shell calls the text asks for — start the
// run with --detach, then `team wait` until the run ends; /cancel runs `team cancel`.
import type { Step } from './scenario.js';

// What a slash command asked, from the text `team init` wrote.
export type SlashCommand = { kind: 'team'; args: string } | { kind: 'cancel' };

const TEAM = /Run a teamline team:[\s\S]*?Arguments: ([^\n]*)/;
const CANCEL = /Cancel a teamline run\. Arguments:/;
// Codex: the skill's text (injected when the user names it) and the user's `$team <request>`.
const SKILL = '# teamline from Codex';
const SKILL_REQUEST = /^\$team (.+)$/m;

// The slash command among the strings of a request, if the session ran one.
export function readSlash(strings: Iterable<string>): SlashCommand | undefined {
  const texts = [...strings];
  if (texts.some((text) => text.includes(SKILL))) {
    const request = texts.map((text) => SKILL_REQUEST.exec(text)?.[1]).find((found) => found !== undefined);
    if (request) return { kind: 'team', args: request.trim() };
  }
  for (const text of texts) {
    const team = TEAM.exec(text);
    // opencode hands the arguments over quoted ("2:executor create hello.txt").
    if (team) return { kind: 'team', args: team[1]!.trim().replace(/^"(.*)"$/, '$1') };
    if (CANCEL.test(text)) return { kind: 'cancel' };
  }
  return undefined;
}

// The next step after `outputs` (the shell outputs so far).
export function slashStep(command: SlashCommand, outputs: string[]): Step {
  if (command.kind === 'cancel') return outputs.length === 0 ? { kind: 'run', command: 'team cancel' } : { kind: 'final', text: `Cancelled: ${outputs[0]}` };
  if (outputs.length === 0) {
    const [first, ...rest] = command.args.split(/\s+/);
    const team = /^\d+(:\S*)?$/.test(first ?? '') ? `${first} ` : '';
    const task = team ? rest.join(' ') : command.args;
    return { kind: 'run', command: `team ${team}"${task}" --detach` };
  }
  const runId = /teamline run (\S+) runs detached/.exec(outputs[0]!)?.[1];
  if (!runId) return { kind: 'final', text: `The run did not start: ${outputs[0]}` };
  const last = outputs.at(-1)!;
  if (outputs.length === 1 || /is still running after/.test(last)) return { kind: 'run', command: `team wait --run ${runId} --timeout 100` };
  return { kind: 'final', text: `The team run ${runId} ended:\n${last}` };
}
