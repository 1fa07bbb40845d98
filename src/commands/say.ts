// `team say [--run ID] --to worker-2|TASK "text"`: a message from the person to a worker or a task,
// through the writer inbox. A running worker sees it at its next tool call; a task's next attempt
// has it in its prompt.
import { randomBytes } from 'node:crypto';
import { sayProblem } from '../team-tools/recipient.js';
import { checkTeamText } from '../team-tools/text.js';
import { validateId } from '../log/guards.js';
import { UsageError } from '../sys/errors.js';
import { openStore } from '../store/open.js';
import { withStore } from '../store/types.js';
import { optionalString, parseFlags, requireString } from './args/args.js';
import { openProject } from './args/project.js';
import { TEAM_FLAGS } from './args/team-flags.js';

const CMD = 'team say';

// Leaves the message for the run's writer; says whether one drives the run now.
export async function sayCommand(argv: string[]): Promise<number> {
  const args = parseFlags(argv, TEAM_FLAGS.say, CMD);
  const to = validateId(requireString(args, 'to', CMD), '--to');
  if (args.positionals.length !== 1) throw new UsageError(`${CMD}: one message, quoted ("text"); got ${args.positionals.length} arguments`);
  const text = checkTeamText(args.positionals[0]!, 'the message');
  const project = openProject(args, { readsStore: true });
  const store = await openStore(project, optionalString(args, 'store'), 'say');
  return withStore(store, async () => {
    const runId = await store.pickRun(optionalString(args, 'run'));
    const { view } = await store.view(runId, project.dir);
    if (view.endedAt !== undefined) throw new UsageError(`${CMD}: run ${runId} has ended (${view.status}): nobody would read the message`);
    const problem = sayProblem(view, to);
    if (problem) throw new UsageError(problem);
    const key = `say-${randomBytes(8).toString('hex')}`;
    await store.postRequest(runId, { kind: 'message', key, body: { from: 'human', to, text, ...(args.values.question === true && { question: true }) } });
    const live = await store.hasWriter(runId);
    process.stdout.write(`message for ${to} left for run ${runId}: ${live ? 'read at its next tool call, or in its next attempt\'s prompt' : 'no orchestrator drives the run now; it is recorded when the run resumes'}\n`);
    return 0;
  });
}
