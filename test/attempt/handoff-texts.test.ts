// The handoffs a prompt carries (issue 40): the latest of each stage whole, the earlier ones of a
// stage named by their paths, so that a later fix loop's prompt does not grow by a page a loop.
import { describe, expect, it } from 'vitest';
import { promptHandoffTexts } from '../../src/attempt/prepare/handoff-texts.js';
import type { HandoffRecord } from '../../machines/types.js';

const texts: Record<string, string> = {};
const run = { events: { fold: { handoffText: (path: string) => texts[path] } }, paths: { handoffsDir: '/nowhere' } } as unknown as Parameters<typeof promptHandoffTexts>[0];
const handoff = (n: number, stage: HandoffRecord['stage']): HandoffRecord => {
  const path = `.team/runs/r/handoffs/${String(n).padStart(2, '0')}-${stage}.md`;
  texts[path] = `## Handoff ${n}: ${stage}`;
  return { stage, path };
};

describe('the handoffs in a prompt', () => {
  it('carries each stage\'s latest whole, in the order written, and names the earlier ones', () => {
    const all = [handoff(1, 'team-plan'), handoff(2, 'team-prd'), handoff(3, 'team-exec'), handoff(4, 'team-verify'), handoff(5, 'team-fix'), handoff(6, 'team-exec'), handoff(7, 'team-verify'), handoff(8, 'team-fix')];
    expect(promptHandoffTexts(run, all)).toEqual([
      '## Handoff 1: team-plan',
      '## Handoff 2: team-prd',
      '## Handoff 6: team-exec',
      '## Handoff 7: team-verify',
      '## Handoff 8: team-fix',
      [
        "Earlier handoffs, each superseded by its stage's later one above (read one only if you need the history):",
        '- .team/runs/r/handoffs/03-team-exec.md (team-exec)',
        '- .team/runs/r/handoffs/04-team-verify.md (team-verify)',
        '- .team/runs/r/handoffs/05-team-fix.md (team-fix)',
      ].join('\n'),
    ]);
  });

  it('carries every handoff whole while no stage has two', () => {
    const all = [handoff(1, 'team-plan'), handoff(2, 'team-prd'), handoff(3, 'team-exec')];
    expect(promptHandoffTexts(run, all)).toEqual(['## Handoff 1: team-plan', '## Handoff 2: team-prd', '## Handoff 3: team-exec']);
  });
});
