// When a spent quota comes back, read from each CLI's words (workers/adapters/failures.ts), and a
// quota failure that names no time names none.
import { describe, expect, it } from 'vitest';
import { makeFailure, readQuotaReset } from '../../../workers/adapters/failures.js';

describe('the reset of a spent quota, in the CLI\'s words', () => {
  it.each([
    ["You've hit your session limit · resets Jan 1, 2031, 3pm (UTC)", 'Jan 1, 2031, 3pm (UTC)'],
    ["You've hit your weekly limit · resets 3pm", '3pm'],
    ['You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro) or try again at Jan 1st, 2031 3:00 PM.', 'at Jan 1st, 2031 3:00 PM'],
    ['You have exhausted your daily quota on this model. Please retry in 2h3m4.5s.', 'in 2h3m4.5s'],
  ])('reads %j', (said, resets) => {
    expect(readQuotaReset(said)).toBe(resets);
    expect(makeFailure('claude', 'quota', said).resets).toBe(resets);
  });

  it('names no reset where the words give no time, and none for a failure that is no quota', () => {
    expect(readQuotaReset('Quota exceeded. Check your plan and billing details.')).toBeUndefined();
    expect(readQuotaReset('usage limit reached, try again later')).toBeUndefined();
    expect(makeFailure('codex', 'bad-key', 'retry in 5s').resets).toBeUndefined();
  });
});
