// Lays out a handoff: the title, the five bullets, and as many detail lines as fit in 10-20 lines.
import { BULLET_LABELS, MAX_LINES, MIN_LINES, type BulletLabel } from './shape.js';
import { LINE_CHARS, toLine } from './text.js';

// One detail line; `key` (a task id, a path) names it in an "and N more" summary.
export interface Detail {
  text: string;
  key?: string;
}

// One bullet: a one-line headline and its detail lines, most important first.
export interface Section {
  headline: string;
  details: Detail[];
}

export type Sections = Record<BulletLabel, Section>;

// A true fact about the run, used only to bring a short handoff up to the minimum length.
export interface Extra extends Detail {
  label: BulletLabel;
}

// The title and the five bullets take this many lines; details share the rest.
const FIXED_LINES = 1 + BULLET_LABELS.length;
const DETAIL_BUDGET = MAX_LINES - FIXED_LINES;
const DETAIL_MINIMUM = MIN_LINES - FIXED_LINES;

// The handoff text: details shared fairly between bullets, long lists summarised.
export function layoutHandoff(title: string, sections: Sections, extras: Extra[]): string {
  const lists = BULLET_LABELS.map((label) => [...sections[label].details]);
  let quotas = shareLines(lists.map((list) => list.length), DETAIL_BUDGET);
  for (const extra of extras) {
    if (sum(quotas) >= DETAIL_MINIMUM) break;
    lists[BULLET_LABELS.indexOf(extra.label)]!.push(extra);
    quotas = shareLines(lists.map((list) => list.length), DETAIL_BUDGET);
  }
  const lines = [toLine(title, LINE_CHARS)];
  for (const [i, label] of BULLET_LABELS.entries()) {
    lines.push(`- **${label}**: ${toLine(sections[label].headline, LINE_CHARS)}`);
    for (const text of fitDetails(lists[i]!, quotas[i]!)) lines.push(`  - ${toLine(text, LINE_CHARS)}`);
  }
  return `${lines.join('\n')}\n`;
}

// Round robin: each bullet gets one more line in turn until the budget or the lists run out.
function shareLines(lengths: number[], budget: number): number[] {
  const quotas = lengths.map(() => 0);
  for (let progress = true; progress; ) {
    progress = false;
    for (const [i, length] of lengths.entries()) {
      if (sum(quotas) >= budget) return quotas;
      if (quotas[i]! < length) {
        quotas[i]! += 1;
        progress = true;
      }
    }
  }
  return quotas;
}

// The details that fit in `quota` lines; the last line summarises the rest when they do not.
function fitDetails(details: Detail[], quota: number): string[] {
  if (details.length <= quota) return details.map((d) => d.text);
  if (quota === 0) return [];
  const shown = details.slice(0, quota - 1);
  const hidden = details.slice(quota - 1);
  const keys = hidden.flatMap((d) => (d.key ? [d.key] : []));
  const others = hidden.length - keys.length;
  const head = shown.length > 0 ? `and ${hidden.length} more` : `${hidden.length} in all`;
  if (keys.length === 0) return [...shown.map((d) => d.text), head];
  return [...shown.map((d) => d.text), `${head}: ${keys.join(', ')}${others > 0 ? ` (+${others} other)` : ''}`];
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
