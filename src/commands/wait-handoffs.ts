// The handoffs' Decided, Risks and Remaining, as `team wait` prints them when a run ends: what an
// agent reports to its user without opening a file.
import { BULLET_LABELS } from '../../handoffs/shape.js';
import { terminalLine } from '../../workers/terminal-text.js';

// The bullets told of, from each handoff.
const TOLD = ['Decided', 'Risks', 'Remaining'] as const;
// A bullet's text is cut here: the summary stays a screen, the handoff file has the rest.
const MAX_BULLET = 240;

export interface HandoffDigest {
  handoff: string;
  decided: string;
  risks: string;
  remaining: string;
}

// Lines (under a heading) and data for --json, one entry per handoff, in the order written.
export function digestHandoffs(handoffs: Array<{ name: string; text: string }>): { lines: string[]; data: HandoffDigest[] } {
  const data = handoffs.map(({ name, text }) => {
    const bullets = bulletsOf(text);
    return { handoff: name, decided: bullets.Decided ?? '', risks: bullets.Risks ?? '', remaining: bullets.Remaining ?? '' };
  });
  if (data.length === 0) return { lines: [], data };
  const lines = ['   handoffs (decided / risks / remaining):'];
  for (const d of data) {
    lines.push(`     ${d.handoff}`);
    for (const label of TOLD) {
      const value = d[label.toLowerCase() as 'decided' | 'risks' | 'remaining'];
      if (value) lines.push(`       ${label}: ${value}`);
    }
  }
  return { lines, data };
}

// The first line of each `- **Label**: text` bullet, flattened and cut.
function bulletsOf(text: string): Partial<Record<(typeof BULLET_LABELS)[number], string>> {
  const found: Partial<Record<(typeof BULLET_LABELS)[number], string>> = {};
  for (const line of text.split('\n')) {
    const match = /^- \*\*([A-Za-z]+)\*\*: (.*)$/.exec(line);
    const label = match?.[1] as (typeof BULLET_LABELS)[number] | undefined;
    if (!label || !BULLET_LABELS.includes(label) || found[label] !== undefined) continue;
    const flat = terminalLine(match![2]!).replace(/\s+/g, ' ').trim();
    found[label] = flat.length > MAX_BULLET ? `${flat.slice(0, MAX_BULLET - 1)}…` : flat;
  }
  return found;
}
