// Renders the live view as lines: a full frame for a terminal, or plain lines of what changed.
import { terminalLine } from '../../sys/terminal-text.js';
import type { AttemptFact, WatchModel } from './model.js';

// Below this many columns the frame does not fit: plain lines instead.
export const MIN_COLUMNS = 60;
// A lane's title column is at most this wide (the whole title is in the plan).
const TITLE_COLUMNS = 28;

// The whole frame, every line safe for a terminal and cut to `columns`; a run nothing drives says so where the footer would be.
export function renderFrame(m: WatchModel, columns: number, footer = 'q quits (the run goes on)'): string[] {
  const lines = [
    `teamline ${m.runId} · ${m.mode} · ${m.status} · ${seconds(m.elapsedMs)}`,
    `stage ${m.stage} · ${doneText(m)}${loopText(m)}${iterationText(m)} · $${m.costUsd.toFixed(4)} · tokens ${m.tokens.input} in / ${m.tokens.output} out`,
    `task ${oneLine(m.task)}`,
    ...(m.spend ?? []),
    '',
  ];
  if (m.lanes.length === 0) lines.push('  (no worker yet)');
  const width = Math.max(6, ...m.lanes.map((l) => l.worker.length));
  const label = Math.max(8, ...m.lanes.map((l) => `${l.task} a${l.attempt}`.length));
  const titles = m.lanes.map((l) => cut(oneLine(l.title), TITLE_COLUMNS));
  const titled = Math.max(0, ...titles.map((t) => t.length));
  m.lanes.forEach((lane, i) => {
    const title = titled ? `${titles[i]!.padEnd(titled)}  ` : '';
    lines.push(`  ${lane.worker.padEnd(width)}  ${`${lane.task} a${lane.attempt}`.padEnd(label)}  ${title}${lane.status.padEnd(11)} ${seconds(lane.elapsedMs).padStart(7)}  ${lane.lastLine}`);
  });
  lines.push('');
  if (m.team?.length) lines.push('team:', ...m.team.map((t) => `  ${t}`));
  lines.push(m.attention.length ? 'needs attention:' : 'needs attention: nothing');
  lines.push(...m.attention.map((a) => `  ${a}`));
  if (m.ended) lines.push(`run ${m.status}${m.outcome ? `: ${oneLine(m.outcome)}` : ''}`);
  else if (m.undriven) lines.push(m.undriven);
  else if (footer) lines.push(footer);
  return lines.map((line) => cut(terminalLine(line), columns));
}

// The facts of the model as plain lines, safe for a terminal; a caller prints those it has not printed before. Every
// attempt has its line, so each completion is printed however soon its worker took the next task.
export function plainFacts(m: WatchModel): string[] {
  const facts = [`stage ${m.stage}${loopText(m)}${iterationText(m)}`];
  for (const attempt of m.attempts) facts.push(attemptFact(attempt));
  facts.push(doneText(m));
  facts.push(...(m.spendFacts ?? []));
  for (const t of m.team ?? []) facts.push(`team: ${t}`);
  for (const a of m.attention) facts.push(`needs attention: ${a}`);
  if (m.undriven) facts.push(m.undriven);
  if (m.ended) facts.push(`run ${m.status}${m.outcome ? `: ${oneLine(m.outcome)}` : ''} · $${m.costUsd.toFixed(4)} · tokens ${m.tokens.input} in / ${m.tokens.output} out`);
  return facts.map(terminalLine);
}

function attemptFact(a: AttemptFact): string {
  return `${a.worker ? `${a.worker} ` : ''}${a.task} a${a.attempt} ${a.stage} ${a.status}${a.title ? ` · ${oneLine(a.title)}` : ''}`;
}

function doneText(m: WatchModel): string {
  const done = m.tasks.total ? `${m.tasks.done}/${m.tasks.total} tasks done` : 'no tasks planned yet';
  return m.attemptCounts ? `${done} · ${m.attemptCounts}` : done;
}

function loopText(m: WatchModel): string {
  return m.maxFixLoops === undefined ? '' : ` · fix loop ${m.loop} of ${m.maxFixLoops}`;
}

function iterationText(m: WatchModel): string {
  return m.maxIterations === undefined ? '' : ` · ralph iteration ${m.iteration} of ${m.maxIterations}`;
}

function seconds(ms: number): string {
  return ms >= 60_000 ? `${Math.floor(ms / 60_000)}m${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}s` : `${(ms / 1000).toFixed(1)}s`;
}

// Made safe before it is measured or cut: a cut must not split an escape sequence.
function oneLine(text: string): string {
  return terminalLine(text).replace(/\s+/g, ' ').trim();
}

function cut(line: string, columns: number): string {
  return line.length > columns ? `${line.slice(0, Math.max(0, columns - 1))}…` : line;
}
