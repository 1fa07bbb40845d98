// The flags of the team tools' commands (issue 28): `team say` and `team mcp`.
import type { FlagSpec } from './args.js';
import { PROJECT_FLAGS } from './flags.js';

export const TEAM_FLAGS = {
  say: {
    ...PROJECT_FLAGS,
    run: { type: 'string', value: 'ID', help: 'the run the message is for', default: 'the latest run of the project' },
    to: { type: 'string', value: 'WHO', help: 'a worker (worker-2) or a task id', default: 'required' },
    question: { type: 'boolean', help: 'the message asks for an answer' },
    store: { type: 'string', value: 'URL', help: 'the run is in a PostgreSQL store: postgres://user:password@host:port/database', default: 'team.store in the config, else the files under .team/runs' },
  },
  mcp: {
    'attempt-dir': { type: 'string', value: 'DIR', help: "the attempt's folder (.team/runs/<run>/attempts/<task>/a<n>): the run, task and worker are learnt from it", default: 'required' },
  },
} satisfies Record<string, Record<string, FlagSpec>>;
