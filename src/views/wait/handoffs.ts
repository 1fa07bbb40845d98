// The handoffs' Decided, Rejected, Risks and Remaining, as `team wait` prints them when a run ends: what an
// agent reports to its user without opening a file.
import { BULLET_LABELS } from '../../../handoffs/shape.js';
import { terminalLine } from '../../sys/terminal-text.js';

// The bullets told of, from each handoff.
const TOLD = ['Decided', 'Rejected', 'Risks', 'Remaining'] as const;
// A bullet's text is cut here: the summary stays a screen, the handoff file has the rest.
const MAX_BULLET = 240;

export interface HandoffDigest {
  handoff: string;
  decided: string;
  rejected: string;
  risks: string;
  remaining: string;
}

// Lines (under a heading) and data for --json, one entry per handoff, in the order written.
export function digestHandoffs(handoffs: Array<{ name: string; text: string }>): { lines: string[]; data: HandoffDigest[] } {
  const data = handoffs.map(({ name, text }) => {
    const bullets = bulletsOf(text);
    return { handoff: name, decided: bullets.Decided ?? '', rejected: bullets.Rejected ?? '', risks: bullets.Risks ?? '', remaining: bullets.Remaining ?? '' };
  });
  if (data.length === 0) return { lines: [], data };
  const lines = ['   handoffs (decided / rejected / risks / remaining):'];
  for (const d of data) {
    lines.push(`     ${d.handoff}`);
    for (const label of TOLD) {
      const value = d[label.toLowerCase() as Lowercase<(typeof TOLD)[number]>];
      if (value) lines.push(`       ${label}: ${value}`);
    }
  }
  return { lines, data };
}

// The first line of each `- **Label**: text` bullet, flattened and cut; Rejected with its details
// (the defects found, the failed tasks), which its first line only counts.
function bulletsOf(text: string): Partial<Record<(typeof BULLET_LABELS)[number], string>> {
  const found: Partial<Record<(typeof BULLET_LABELS)[number], string>> = {};
  let open: (typeof BULLET_LABELS)[number] | undefined;
  for (const line of text.split('\n')) {
    const detail = /^ {2}- (.*)$/.exec(line);
    if (detail && open === 'Rejected') {
      found.Rejected = `${found.Rejected}; ${detail[1]}`;
      continue;
    }
    const match = /^- \*\*([A-Za-z]+)\*\*: (.*)$/.exec(line);
    const label = match?.[1] as (typeof BULLET_LABELS)[number] | undefined;
    open = label && BULLET_LABELS.includes(label) && found[label] === undefined ? label : undefined;
    if (open) found[open] = match![2]!;
  }
  for (const label of BULLET_LABELS) if (found[label] !== undefined) found[label] = cut(terminalLine(found[label]!));
  return found;
}

function cut(flat: string): string {
  return flat.length > MAX_BULLET ? `${flat.slice(0, MAX_BULLET - 1)}…` : flat;
}
