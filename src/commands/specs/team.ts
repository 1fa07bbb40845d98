// The help of the team tools' commands and of teamline as an ACP agent: say, mcp, acp.
import { EXIT } from '../../sys/errors.js';
import { FLAGS } from '../args/flags.js';
import { TEAM_FLAGS } from '../args/team-flags.js';
import { USAGE_EXIT, type CommandSpec } from './spec.js';

export const TEAM_COMMANDS: CommandSpec[] = [
  {
    name: 'say',
    run: async (args) => (await import('../say.js')).sayCommand(args),
    brief: 'send a message to a worker or a task of a run',
    group: 'follow',
    summary: 'send a message to a running worker (delivered at its next team tool call) or to a task (also shown in its next attempt\'s prompt)',
    args: '"text"',
    about: ['The message goes through the run\'s writer, which records it once; with no orchestrator running it waits for `team resume`.', 'A message nobody would read is refused (exit 2): to a worker not in the current roster (after team scale) or to a task that has ended; the error names the roster and the tasks not ended.', 'Messages to the lead from the workers show in team status, watch, wait and the report; a message never read (its worker drained, its task or run ended) shows there as undelivered.'],
    flags: TEAM_FLAGS.say,
    examples: [
      ['team say --to worker-2 "use the v2 API, not v1"', 'tell worker-2 at its next tool call'],
      ['team say --to api-tests --question "is the fixture shared?"', 'a question for whoever works on task api-tests'],
    ],
    exits: [[EXIT.completed, 'the message is left for the run\'s writer'], USAGE_EXIT],
  },
  {
    name: 'mcp',
    run: async (args) => (await import('../mcp.js')).mcpCommand(args),
    brief: 'the team tools of one attempt, over MCP (started by the agent CLIs)',
    group: 'low level',
    summary: 'serve the team tools (team_tasks, team_message, team_inbox, team_progress, team_reserve, team_done, team_fail) over MCP on stdin/stdout, for one attempt',
    about: ['The agent CLIs start it with the attempt\'s folder; the run, task and worker are read from that folder. Each call is recorded in the run\'s log before it is answered.'],
    flags: TEAM_FLAGS.mcp,
    examples: [['team mcp --attempt-dir .team/runs/20261028T131016577943Z-20fe61/attempts/api/a1', 'serve the tools of attempt 1 of task api']],
    exits: [[EXIT.completed, 'the client closed the connection'], USAGE_EXIT],
  },
  {
    name: 'acp',
    run: async (args) => (await import('../acp.js')).acpCommand(args),
    brief: 'teamline as an ACP agent that editors drive (started by the editor)',
    group: 'low level',
    summary: 'serve teamline as an ACP agent on stdin/stdout: a prompt starts a run in the session\'s folder, its tasks stream as plan entries, each attempt as a tool call, the end\'s summary as the message',
    about: [
      'A prompt is what follows `team` on the command line: "3:executor add input validation to the API --agent codex", "ralph fix the flaky test", or the task alone (flags from the first --word on; quote a task that holds one). The run is an ordinary one: team status, watch, report and land see it.',
      'Each handoff comes as the agent\'s message as it is written. A worker\'s question to the lead is asked of the editor (session/request_permission, yes or no) and the answer said to the worker (team say). A run that stops for a decision (its budget spent, a quota, interrupted attempts) is asked too: go on resumes it in the same turn (the budget raised to twice what it allowed), or it stays stopped.',
      'An editor that loads an earlier session (session/load) is told its run as it stands; the prompt `resume` (with flags such as --budget-usd 5) goes on with it as team resume does. The sessions\' runs are kept in .team/acp-sessions.json.',
      'session/cancel asks the run to cancel, as team cancel does. In Zed: "agent_servers": { "teamline": { "command": "team", "args": ["acp"] } }.',
    ],
    flags: FLAGS.acp,
    examples: [['team acp', 'what an editor runs in the project to drive teamline']],
    exits: [[EXIT.completed, 'the client closed the connection'], USAGE_EXIT],
  },
];
