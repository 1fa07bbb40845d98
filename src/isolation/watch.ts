// The watch on the user's checkout: read at the run's start (checkout_recorded), read again at every
// merge and at the end; any change is a checkout_changed with what changed and the attempts running,
// for status, the end message and `team land`, which refuses until the person acknowledges it (in an
// unfenced run: behind the fence no agent can write there, and the change is the user's own).
import { describeCheckoutChanges, readCheckoutState } from '../git/checkout-state.js';
import { git } from '../git/git.js';
import type { IsolationParts } from '../session/isolation.js';
import { append } from './facts.js';

// Reads the user's checkout at the run's start, unless the log holds a reading already (a resume).
export async function watchCheckout(run: IsolationParts): Promise<void> {
  const iso = run.isolation;
  if (!iso.active || iso.checkout !== undefined) return;
  append(run, { event: 'checkout_recorded', state: await readCheckoutState(await findTop(iso.projectDir)) });
}

// Reads the checkout again and records what changed since the last reading; `seen` says when.
export async function checkCheckout(run: IsolationParts, seen: string): Promise<void> {
  const iso = run.isolation;
  if (!iso.active || iso.checkout === undefined) return;
  const now = await readCheckoutState(await findTop(iso.projectDir));
  const changes = describeCheckoutChanges(iso.checkout, now);
  if (changes.length === 0) return;
  const attempts = [...iso.started.entries()].filter(([key]) => !run.events.isFinished(...splitKey(key))).map(([, line]) => line);
  append(run, { event: 'checkout_changed', changes, seen, attempts, state: now });
  // Fenced workers cannot write there: the change is the user's own, told and never asked about.
  if (iso.told.fence?.on) return run.progress.emit({ type: 'checkout.changed', changes, seen, attempts, own: true }, `  your own change during the run (its workers were fenced out of your checkout; seen ${seen}): ${changes.join('; ')}`);
  const running = attempts.length > 0 ? `; running then: ${attempts.join(', ')}` : '';
  run.progress.emit({ type: 'checkout.changed', changes, seen, attempts }, `  ⚠ needs attention: your checkout changed while the run ran (seen ${seen}): ${changes.join('; ')}${running}`);
}

async function findTop(dir: string): Promise<string> {
  return (await git(dir, ['rev-parse', '--show-toplevel'])).stdout || dir;
}

function splitKey(key: string): [string, number] {
  const at = key.lastIndexOf('#');
  return [key.slice(0, at), Number(key.slice(at + 1))];
}
