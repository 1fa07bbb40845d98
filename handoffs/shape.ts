// The handoff shape of SPEC section 3, shared by the renderer and the checker.

// The five bullets of every handoff, in this order.
export const BULLET_LABELS = ['Decided', 'Rejected', 'Risks', 'Files', 'Remaining'] as const;
export type BulletLabel = (typeof BULLET_LABELS)[number];

// SPEC: a handoff is 10-20 lines, title included.
export const MIN_LINES = 10;
export const MAX_LINES = 20;

// The title line: `## Handoff: <stage> → <next>`.
const TITLE = /^## Handoff: [a-z][a-z-]* → \S.*$/;

// Bullet content that says nothing: a template left unfilled.
const PLACEHOLDER = /^(\.\.\.|…|-|todo|tbd|n\/a|placeholder)$/i;

// The first way `text` departs from the handoff shape, in words, or undefined when it fits.
export function checkHandoffShape(text: string): string | undefined {
  const lines = text.replace(/\r?\n$/, '').split(/\r?\n/);
  const title = lines[0] ?? '';
  if (!TITLE.test(title)) return `line 1 should read "## Handoff: <stage> → <next>", found ${JSON.stringify(title.slice(0, 80))}`;
  let bullets = 0;
  for (const [i, line] of lines.entries()) {
    if (i === 0) continue;
    if (line.startsWith('- ')) {
      const label = BULLET_LABELS[bullets];
      if (!label) return `line ${i + 1} is a sixth top-level bullet; a handoff has exactly ${BULLET_LABELS.join(', ')}`;
      const prefix = `- **${label}**: `;
      if (!line.startsWith(prefix)) return `line ${i + 1} should be the "${label}" bullet (${BULLET_LABELS.join(', ')} in order), found ${JSON.stringify(line.slice(0, 40))}`;
      const content = line.slice(prefix.length).trim();
      if (!content || PLACEHOLDER.test(content)) return `the "${label}" bullet on line ${i + 1} is empty or a placeholder`;
      bullets += 1;
    } else if (/^\s+\S/.test(line)) {
      if (bullets === 0) return `line ${i + 1} is indented detail before the "Decided" bullet`;
    } else {
      return `line ${i + 1} is neither a bullet nor an indented detail: ${JSON.stringify(line.slice(0, 40))}`;
    }
  }
  if (bullets < BULLET_LABELS.length) return `the "${BULLET_LABELS[bullets]}" bullet is missing`;
  if (lines.length < MIN_LINES || lines.length > MAX_LINES) return `the handoff has ${lines.length} lines; the shape asks for ${MIN_LINES}-${MAX_LINES}`;
  return undefined;
}
