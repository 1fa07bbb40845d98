// The words of the slash commands `team init` writes: one text per command, shared by every CLI;
// `args` is how the CLI names the command's arguments ($ARGUMENTS, {{args}}, or the user's request).

// How long one `team wait` blocks: under Claude Code's 2-minute default for a Bash command.
export const WAIT_S = 100;

export interface CommandText {
  name: 'team' | 'ralph' | 'cancel' | 'team-status';
  description: string;
  argumentHint: string;
  body(args: string): string;
}

const follow = (what: string) => `2. Follow the run with \`team wait --run <id> --timeout ${WAIT_S}\`, again and again: each call blocks at most ${WAIT_S} seconds, under your shell tool's time limit (use a smaller --timeout if your shell stops commands sooner).
   - exit 5: the ${what} is still going; the output is a summary of what changed since the last wait. Tell the user in one or two lines (stage, tasks done/running/failed, cost, anything under "needs attention"), then wait again.
   - exit 0 completed, 1 failed, 3 cancelled, 4 stopped for a human decision: it ended; stop waiting.
   - exit 6: no orchestrator drives the run any more; tell the user that \`team resume --run <id> --detach\` continues it and \`team cancel --run <id>\` ends it.
3. When it ended, report the final summary that \`team wait\` printed (outcome, tasks, fix loops, cost) and the handoffs: read the files in \`handoffs/\` of the run folder the summary names and give their Decided, Risks and Remaining. On exit 4, show what \`team status --run <id>\` lists under "needs attention" and ask the user what to do.

Never run a team in the foreground (without --detach): it outlives your shell tool's time limit. If the user asks to stop it: \`team cancel --run <id>\`.`;

const start = (command: string, args: string) => `Arguments: ${args}

1. Start the run in the background: \`${command} [N:agent-type] "<task>" --detach\`. The first argument may be N:agent-type (e.g. \`3:executor\`: 3 workers); everything else is the task, given as ONE quoted argument (quote it yourself; a one-word task needs \`--task WORD\`). It prints the run id and returns at once.`;

export const COMMAND_TEXTS: CommandText[] = [
  {
    name: 'team',
    description: 'Run a teamline team on a task in the background (plan, N workers, verify, fix loop) and follow it',
    argumentHint: '[N:agent-type] <task>',
    body: (args) => `Run a teamline team: a planner breaks the task into a task graph, N worker agents run it, gates and a verifier check it, a bounded fix loop repairs it.\n\n${start('team', args)}\n${follow('run')}\n`,
  },
  {
    name: 'ralph',
    description: 'Run a teamline ralph loop (team, then an architect review, until approved or K iterations) in the background and follow it',
    argumentHint: '[N:agent-type] <task> [--max-iterations K]',
    body: (args) => `Run a teamline ralph loop: the team pipeline, then an architect's review; a rejection becomes work for the next iteration, up to --max-iterations (default 10).\n\n${start('team ralph', args)} Pass \`--max-iterations K\` through when the user gave it.\n${follow('loop')}\n`,
  },
  {
    name: 'cancel',
    description: 'Cancel the running teamline team (graceful shutdown of every worker)',
    argumentHint: '[run id] [--force]',
    body: (args) => `Cancel a teamline run. Arguments: ${args}\n\n1. Run \`team cancel\` (add \`--run <id>\` when the arguments name a run id, \`--force\` when they say force). It asks the run's orchestrator to stop every worker, waits for the shutdown and prints the result; it also works when the orchestrator is already gone.\n2. Run \`team status\` and report the run's status (cancelled), its stage, and what needs attention. A cancelled run stays cancelled; a new \`/team\` starts a new run.\n`,
  },
  {
    name: 'team-status',
    description: "Show where the teamline runs stand (the latest run's stage, tasks, cost, attention; every run of the project)",
    argumentHint: '[run id]',
    body: (args) => `Report the state of the project's teamline runs. Arguments: ${args}\n\n1. Run \`team status\` (with \`--run <id>\` when the arguments name a run id) and \`team list\`.\n2. Report: the run's status and stage, the fix loop, the tasks done/running/failed, the cost, and everything under "needs attention"; then one line per run from \`team list\` (id, status, duration, cost, session).\n`,
  },
];

// The Codex skill: skills take no arguments, so it tells the model how to call `team` for each request.
export function codexSkill(): string {
  const team = COMMAND_TEXTS[0]!;
  return `---
name: team
description: Run, follow, cancel or inspect a teamline team of coding agents (the \`team\` command). Use when the user asks to run a team or a ralph loop on a task, to wait for or report on a team run, or to cancel one.
---

# teamline from Codex

The user's request names what to do; \`team\` does it.

## Run a team (or a ralph loop)
${team.body("the user's request").replace(/^Run a teamline team:[^\n]*\n\n/, '')}
For a ralph loop (a team, then an architect's review, until approved): the same with \`team ralph … --detach\` (and \`--max-iterations K\`).

## Cancel
\`team cancel\` (\`--run <id>\`, \`--force\`), then \`team status\`; report the run's status.

## Status
\`team status\` (\`--run <id>\`) and \`team list\`; report the stage, the tasks, the cost and what needs attention.
`;
}
