// The scripted model's answers: it reads the teamline prompt (config/prompts/*.md), and for each
// stage asks the CLI to use its own tools — write the files, run a command, write the result
// file — then ends with a short text. Stateless: the next step follows from the prompt and the
// tool outputs the CLI sent back so far.
import { existsSync } from 'node:fs';
import { NOTES_MARK, noteSteps } from './progress-notes.js';
import { TEAM_TOOLS_MARK, teamToolSteps, teamToolsPlan } from './team-tools.js';

// One step of the model: a tool call, or the final text.
export type Step =
  | { kind: 'write'; path: string; content: string }
  | { kind: 'run'; command: string }
  /** A call of a tool the request offers by this name (the team tools). */
  | { kind: 'tool'; name: string; args: Record<string, unknown> }
  | { kind: 'final'; text: string };

// What the prompt says about the attempt.
export interface PromptFacts {
  stage: string;
  /** From the result file's path: .team/runs/<run>/attempts/<task>/a<n>/result.json. */
  taskId: string;
  resultFile: string;
  /** The project the run is in (its .team/runs holds the result file). */
  runDir: string;
  projectDir: string;
  /** The run task asks for the team tools scenario (TEAM_TOOLS_MARK). */
  teamTools: boolean;
  /** The run task asks for the progress notes scenario (NOTES_MARK). */
  notes: boolean;
  /** The run task asks t2's agent to attack the user's checkout first (HOSTILE_MARK). */
  hostile: boolean;
  /** The run task asks for the best of two vendors (BEST_OF_MARK). */
  bestOf: boolean;
  /** The selector's prompt: each candidate that completed, and how its gates went. */
  candidates?: Array<{ id: string; gates: string }>;
}

// In a run's task: the planner asks for t1 as the best of 2, one candidate on claude and one on
// codex, each writing src/t1.txt with its own tools; the selector picks the one whose gates passed.
export const BEST_OF_MARK = '(the best of claude and codex)';
export const BEST_OF_FILE = 'src/t1.txt';

// In a run's task: t2's exec agent first runs hostileCommand, then does its work.
export const HOSTILE_MARK = '(t2 also tries the user checkout)';
// Every harm at once, each on its own (`;`), from the agent's worktree against the user's checkout
// `top` (where the run's folder is): reset it, append to their README, write a stray file, delete
// their untracked file, force their branch to a new commit, delete the run's integration branch,
// append to ~/.bashrc. No command substitution: gemini refuses a command that has one.
export function hostileCommand(top: string): string {
  const q = (path: string) => `"${path}"`;
  return [
    `git -C ${q(top)} reset -q --hard HEAD`,
    `echo appended >> ${q(`${top}/README.md`)}`,
    `echo stray > ${q(`${top}/stray.txt`)}`,
    `unlink ${q(`${top}/mine.txt`)}`,
    `git commit -q --allow-empty -m stray && git push --force ${q(top)} HEAD:refs/heads/main`,
    'git update-ref -d "refs/heads/team/$TEAM_RUN_ID"',
    'echo "alias ls=rm" >> "$HOME/.bashrc"',
    'true',
  ].join('; ');
}

const STAGE = /# teamline · ([a-z-]+) · /;
const RESULT_FILE = /\$TEAM_RESULT_FILE \(([^)\n]+)\)/;
const PROJECT_DIR = /project folder \(([^)\n]+)\)/;

// The facts of a teamline prompt, or undefined for any other text (titles, routers).
export function readPrompt(text: string): PromptFacts | undefined {
  const stage = STAGE.exec(text)?.[1];
  const resultFile = RESULT_FILE.exec(text)?.[1];
  if (stage === undefined || resultFile === undefined) return undefined;
  const attempts = resultFile.split('/');
  const taskId = attempts.at(-3) ?? '';
  const runDir = resultFile.slice(0, resultFile.indexOf('/.team/'));
  // The selector reads its candidates as teamline lists them: `- <id> (<agent>): completed; gates passed …`.
  const candidates = stage === 'selector' ? [...text.matchAll(/^- (\S+) \([^)]*\): completed; gates (passed|failed|not run)/gm)].map((m) => ({ id: m[1]!, gates: m[2]! })) : undefined;
  return { stage, taskId, resultFile, runDir, projectDir: PROJECT_DIR.exec(text)?.[1] ?? runDir, teamTools: text.includes(TEAM_TOOLS_MARK), notes: text.includes(NOTES_MARK), hostile: text.includes(HOSTILE_MARK), bestOf: text.includes(BEST_OF_MARK), ...(candidates && { candidates }) };
}

// The file an exec task writes, relative to the project, and what it holds.
export function taskFile(taskId: string): string {
  return `src/${taskId}.txt`;
}
export function taskContent(cli: string, taskId: string): string {
  return `${taskId} written by ${cli}'s own write tool\n`;
}
// A node program that prints the files named by its arguments.
const PRINT_FILES = 'for (const f of process.argv.slice(1)) process.stdout.write(require("fs").readFileSync(f, "utf8"))';

// The file the fix of defect d1 writes.
export const FIX_FILE = 'src/t1-fix.txt';
export function fixContent(cli: string): string {
  return `d1 fixed by ${cli}\n`;
}

// The next step of an attempt after `outputs` (the tool outputs so far, oldest first). When the
// result file could not be written (a stage that may only read), the final text carries the
// result as a fenced json block, as the prompt asks.
export function nextStep(cli: string, facts: PromptFacts, outputs: string[], toolNames: string[] = []): Step {
  const file = { path: `${facts.projectDir}/${taskFile(facts.taskId)}`, relative: taskFile(facts.taskId), content: taskContent(cli, facts.taskId) };
  const steps = noteSteps(facts, toolNames, file) ?? teamToolSteps(facts, toolNames, outputs, file) ?? stageSteps(cli, facts, outputs);
  const next = steps[outputs.length];
  if (next) return next;
  const result = steps.find((step) => step.kind === 'write' && step.path === facts.resultFile);
  const fenced = result?.kind === 'write' && !existsSync(facts.resultFile) ? `\n\n\`\`\`json\n${result.content}\`\`\`\n` : '';
  return { kind: 'final', text: `Done: ${facts.stage} ${facts.taskId}.${fenced}` };
}

function stageSteps(cli: string, facts: PromptFacts, outputs: string[]): Step[] {
  const at = (relative: string) => `${facts.projectDir}/${relative}`;
  const result = (fields: Record<string, unknown>): Step => ({
    kind: 'write',
    path: facts.resultFile,
    content: `${JSON.stringify({ status: 'completed', evidence: `${cli} tool calls`, next: '', ...fields }, null, 2)}\n`,
  });
  if (facts.bestOf) return bestOfSteps(cli, facts, at, result);
  switch (facts.stage) {
    case 'team-plan':
      if (facts.teamTools) return [result({ summary: 'three tasks, one after another', artifacts: [], needsPrd: false, tasks: teamToolsPlan(taskFile) })];
      return [result({ summary: 'two parallel tasks', artifacts: [], needsPrd: false, tasks: ['t1', 't2'].map((id) => ({ id, title: `write ${taskFile(id)}`, description: `Write ${taskFile(id)}.`, blockedBy: [], acceptance: [`${taskFile(id)} exists`] })) })];
    case 'team-exec':
      return [
        ...(facts.hostile && facts.taskId === 't2' ? [{ kind: 'run' as const, command: hostileCommand(facts.resultFile.slice(0, facts.resultFile.indexOf('/.team/'))) }] : []),
        { kind: 'write', path: at(taskFile(facts.taskId)), content: taskContent(cli, facts.taskId) },
        result({ summary: `wrote ${taskFile(facts.taskId)}`, artifacts: [taskFile(facts.taskId)] }),
      ];
    case 'team-fix':
      return [{ kind: 'write', path: at(FIX_FILE), content: fixContent(cli) }, result({ summary: 'fixed d1', artifacts: [FIX_FILE] })];
    case 'team-verify':
      if (facts.teamTools || facts.notes) return [result({ summary: 'the team tools run needs no check', verdict: 'pass', defects: [] })];
      return verifySteps(cli, facts, outputs, at, result);
    case 'team-prd':
      return [result({ summary: 'no criteria to add', acceptance: {} })];
    default:
      return [result({ summary: 'approved', verdict: 'approve', reasons: [] })];
  }
}

// The best of two vendors: one task on claude and on codex at once, each writing BEST_OF_FILE; the
// selector picks the candidate whose gates passed (the gate wants codex's words there).
function bestOfSteps(cli: string, facts: PromptFacts, at: (p: string) => string, result: (f: Record<string, unknown>) => Step): Step[] {
  switch (facts.stage) {
    case 'team-plan':
      return [result({ summary: 'one task, the best of two vendors', artifacts: [], needsPrd: false, tasks: [{ id: 't1', title: `write ${BEST_OF_FILE}`, description: `Write ${BEST_OF_FILE}.`, acceptance: [`${BEST_OF_FILE} exists`], files: [BEST_OF_FILE], bestOf: 2, agents: ['claude', 'codex'] }] })];
    case 'team-exec':
      return [{ kind: 'write', path: at(BEST_OF_FILE), content: taskContent(cli, 't1') }, result({ summary: `wrote ${BEST_OF_FILE}`, artifacts: [BEST_OF_FILE] })];
    case 'selector': {
      const pick = facts.candidates?.find((c) => c.gates === 'passed') ?? facts.candidates?.[0];
      return [result({ summary: `picked ${pick?.id ?? 'none'}`, artifacts: [], pick: pick?.id ?? 'none', reasons: [`${pick?.id} passed its gates`, 'the other failed them'] })];
    }
    default:
      return [result({ summary: 'the work is there', verdict: 'pass', defects: [] })];
  }
}

// The verifier must run a program (node prints the files: no CLI counts that as a read-only
// command it may run unasked), and its verdict follows from what the program printed.
// The first verify finds defect d1 (to drive one fix loop); a later one passes when the fix is there.
function verifySteps(cli: string, facts: PromptFacts, outputs: string[], at: (p: string) => string, result: (f: Record<string, unknown>) => Step): Step[] {
  const first = facts.taskId === 'verify-1';
  const files = first ? ['t1', 't2'].map(taskFile) : [...['t1', 't2'].map(taskFile), FIX_FILE];
  const expected = first ? ['t1', 't2'].map((id) => taskContent(cli, id)) : [...['t1', 't2'].map((id) => taskContent(cli, id)), fixContent(cli)];
  const run: Step = { kind: 'run', command: `node -e '${PRINT_FILES}' ${files.map((f) => `"${at(f)}"`).join(' ')}` };
  const output = outputs[0];
  if (output === undefined) return [run];
  const seen = expected.every((line) => output.includes(line.trim()));
  if (!seen) return [run, result({ summary: 'the check could not run', verdict: 'fail', defects: [{ id: 'd1', description: `the check printed: ${output.slice(0, 300)}`, task: 't1' }] })];
  if (first) return [run, result({ summary: 't1 lacks its fix note', verdict: 'fail', defects: [{ id: 'd1', description: `write ${FIX_FILE}`, task: 't1' }] })];
  return [run, result({ summary: 'every file holds what the tools wrote', verdict: 'pass', defects: [] })];
}
