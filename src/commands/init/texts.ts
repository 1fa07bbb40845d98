// The words of the slash commands `team init` writes: one text per command, shared by every CLI;
// `args` is how the CLI names the command's arguments ($ARGUMENTS, {{args}}, or the user's request),
// `team` how the shell finds teamline (the word `team`, or the absolute path given to --bin).
// Outcomes are named by the words `team wait` prints: some shell tools show the model no exit code.

// How long one `team wait` blocks: under Claude Code's 2-minute default for a Bash command.
export const WAIT_S = 100;

export interface CommandText {
  name: 'team' | 'ralph' | 'cancel' | 'team-status';
  description: string;
  argumentHint: string;
  body(args: string, team: string): string;
}

// Permission rules (Claude's allowed-tools, Gemini's policy, Codex's rule) match a command that starts with `team`.
const alone = (team: string) => `Run each \`${team}\` command on its own: no \`cd … &&\`, \`;\`, pipes or redirection, which the permission rules for \`${team}\` do not cover.`;

// `team wait` prints `team` at the start of its next command; with --bin the agent writes the path there.
const asPrinted = (team: string) => (team === 'team' ? 'exactly as printed' : `exactly as printed, with \`${team}\` in place of the leading \`team\``);

const follow = (what: string, team: string) => `2. Follow the run with \`${team} wait --run <id> --timeout ${WAIT_S}\`. Each call blocks at most ${WAIT_S} seconds, under your shell tool's time limit (use a smaller --timeout if your shell stops commands sooner). Read what it prints: its words say how the ${what} stands (the exit code, where your shell shows one, says the same).
   - still running (it says "still running"; exit 5): the output is a summary of what changed since the last wait. Tell the user in one or two lines (stage, tasks done/running/failed, cost, anything under "needs attention"), then run the command its \`next:\` line gives, \`team wait --run <id> --since <N> --round <K> --timeout <S>\`, ${asPrinted(team)} and without the words in parentheses after it: every call takes the latest \`next:\` line, never an earlier one (its --since and --round change each time). When it says "a worker asked the lead", it returned early for that question: put the question (under "needs attention") to the user, pass their answer on with the \`${team} say --to …\` command it shows, then run the \`next:\` command.
   - completed, failed or cancelled (its summary says COMPLETED, FAILED or CANCELLED; exit 0, 1 or 3): it ended; stop waiting and report (step 3).
   - needs a decision (its summary says STOPPED; exit 4): it stopped for a human decision; stop waiting, show what \`${team} status --run <id>\` lists under "needs attention" and ask the user what to do.
   - nobody drives it (it says "nothing drives it"; exit 6): its orchestrator stopped or died; stop waiting and tell the user that \`${team} resume --run <id> --detach\` continues it and \`${team} cancel --run <id>\` ends it.
3. When it ended, report from what \`${team} wait\` printed, without opening any file (its summary holds all of it): the outcome, the tasks, the fix loops and the cost; the handoffs' Decided, Risks and Remaining; and where the work is: the branch \`team/<id>\`, which \`${team} land --run <id>\` brings into the user's branch (give that exact command, with the run id; run it only if the user asks), or the project folder itself when the summary says \`isolation: none\`.

Never run a team in the foreground (without --detach): it outlives your shell tool's time limit. If the user asks to stop it: \`${team} cancel --run <id>\`. ${alone(team)}`;

const start = (command: string, args: string) => `Arguments: ${args}

1. Start the run in the background: \`${command} [N:agent-type] "<task>" --detach\`. The first argument may be N:agent-type (e.g. \`3:executor\`: 3 workers); everything else is the task, given as ONE quoted argument (quote it yourself; a one-word task needs \`--task WORD\`). It prints the run id and returns at once.`;

export const COMMAND_TEXTS: CommandText[] = [
  {
    name: 'team',
    description: 'Run a teamline team on a task in the background (plan, N workers, verify, fix loop) and follow it',
    argumentHint: '[N:agent-type] <task>',
    body: (args, team) => `Run a teamline team: a planner breaks the task into a task graph, N worker agents run it, gates and a verifier check it, a bounded fix loop repairs it.\n\n${start(team, args)}\n${follow('run', team)}\n`,
  },
  {
    name: 'ralph',
    description: 'Run a teamline ralph loop (team, then an architect review, until approved or K iterations) in the background and follow it',
    argumentHint: '[N:agent-type] <task> [--max-iterations K]',
    body: (args, team) => `Run a teamline ralph loop: the team pipeline, then an architect's review; a rejection becomes work for the next iteration, up to --max-iterations (default 10).\n\n${start(`${team} ralph`, args)} Pass \`--max-iterations K\` through when the user gave it.\n${follow('loop', team)}\n`,
  },
  {
    name: 'cancel',
    description: 'Cancel the running teamline team (graceful shutdown of every worker)',
    argumentHint: '[run id] [--force]',
    body: (args, team) => `Cancel a teamline run. Arguments: ${args}\n\n1. Run \`${team} cancel\` (add \`--run <id>\` when the arguments name a run id, \`--force\` when they say force). It asks the run's orchestrator to stop every worker, waits for the shutdown and prints the result; it also works when the orchestrator is already gone.\n2. Run \`${team} status\` and report in its words: the run's status (cancelled), its stage, and what needs attention. A cancelled run stays cancelled; a new \`/team\` starts a new run.\n\n${alone(team)}\n`,
  },
  {
    name: 'team-status',
    description: "Show where the teamline runs stand (the latest run's stage, tasks, cost, attention; every run of the project)",
    argumentHint: '[run id]',
    body: (args, team) => `Report the state of the project's teamline runs. Arguments: ${args}\n\n1. Run \`${team} status\` (with \`--run <id>\` when the arguments name a run id) and \`${team} list\`.\n2. Report in their words: the run's status (running, completed, failed, cancelled, stopped for a decision, or nothing drives it) and stage, the fix loop, the tasks done/running/failed, the cost, and everything under "needs attention"; when nobody drives a run, that \`${team} resume --run <id> --detach\` continues it; when a run's work is not landed yet, the branch \`team/<id>\` and the \`${team} land --run <id>\` command that takes it; then one line per run from \`${team} list\` (id, status, duration, cost, session).\n\n${alone(team)}\n`,
  },
];

// The Codex skill: skills take no arguments, so it tells the model how to call `team` for each request.
export function codexSkill(team: string): string {
  const run = COMMAND_TEXTS[0]!;
  return `---
name: team
description: Run, follow, cancel or inspect a teamline team of coding agents (the \`team\` command). Use when the user asks to run a team or a ralph loop on a task, to wait for or report on a team run, or to cancel one.
---

# teamline from Codex

The user's request names what to do; \`${team}\` does it.

## Outside the sandbox
Run every \`${team}\` command outside the sandbox: a run's orchestrator outlives the command, writes \`.team/\` and \`.git\`, and must be seen by later \`${team}\` commands. The rule \`team init --codex\` wrote (\`.codex/rules/team.rules\`, or \`~/.codex/rules/team.rules\`) allows that. When the sandbox still refuses a \`${team}\` command (read-only file system, EROFS, EACCES or ENOENT under \`.team/\` or \`.git\`, or \`${team}\` saying it cannot keep a detached orchestrator here), run it again with escalated permissions, outside the sandbox, and never report the run as failed for it.

## Run a team (or a ralph loop)
${run.body("the user's request", team).replace(/^Run a teamline team:[^\n]*\n\n/, '')}
For a ralph loop (a team, then an architect's review, until approved): the same with \`${team} ralph … --detach\` (and \`--max-iterations K\`).

## Cancel
\`${team} cancel\` (\`--run <id>\`, \`--force\`), then \`${team} status\`; report the run's status in its words (cancelled).

## Status
\`${team} status\` (\`--run <id>\`) and \`${team} list\`; report the status in its words (running, completed, failed, cancelled, stopped for a decision, nothing drives it), the stage, the tasks, the cost, what needs attention, and for work not landed yet the \`${team} land --run <id>\` command.
`;
}
