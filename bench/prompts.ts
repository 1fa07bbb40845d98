// Prompts a provider can cache (issue 40): in a run of the sim agent (a git repository, 2 workers,
// the demo's scenario), the exec prompts of two workers share a prefix. The row: teamline's own text
// of one exec prompt (all of it but the task's own section: its id, title, description, acceptance,
// files and dependencies) against the prefix it shares with another worker's exec prompt. At most
// 1.25x is a shared prefix of at least 80% of teamline's text.
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { resolveRun } from '../src/log/write.js';
import { judgeResult, type ResultKind } from '../src/domain/result.js';
import type { Comparison } from './parts/compare.js';
import { makeScratchRepo } from './parts/scratch.js';
import { TEAM_BIN } from '../src/sys/team-bin.js';

const CLI = TEAM_BIN;
const TARGET = 1.25;

export async function benchPrompts(): Promise<Comparison[]> {
  const { dir, env } = makeScratchRepo('teamline-bench-prompts-', { 'README.md': '# prompts\n' });
  mkdirSync(join(dir, 'src'), { recursive: true });
  const run = await execa(process.execPath, [CLI, '2:executor', 'add input validation to the API and document it', '--agent', 'sim'], { cwd: dir, env, reject: false, stdin: 'ignore' });
  if (run.exitCode !== 0) throw new Error(`the prompts run exited ${run.exitCode}: ${run.stderr}`);
  const attempts = resolveRun(dir, undefined).attemptsDir;
  const exec = readdirSync(attempts).filter((id) => /^t\d+$/.test(id)).sort();
  if (exec.length < 2) throw new Error(`the prompts run made ${exec.length} exec attempts, not 2 or more`);
  const [one, two] = exec.slice(0, 2).map((id) => readFileSync(join(attempts, id, 'a1', 'prompt.md'), 'utf8'));
  let shared = 0;
  while (shared < one!.length && one![shared] === two![shared]) shared += 1;
  const own = one!.length - one!.indexOf('## Your task:');
  const teamlines = one!.length - own;
  return [resultSyntax(dir), { name: 'prompt prefix', detail: `two workers' exec prompts of one run (${exec[0]}, ${exec[1]}): teamline's text of one vs the prefix they share; the task's own section ${own} chars`, ms: teamlines, baselineMs: shared, target: TARGET, unit: 'chars' }, ...(await loopRows())];
}

// What teamline adds to each stage's prompt (issue 40): its own text — the preamble, the protocol,
// the result's shape, the handoffs, the attempt's section — all of the prompt but the run's task and
// the task's (or defect's) own section, against a budget of 6,000 chars (about 1,500 tokens, at about
// 4 chars a token): the task's own words and the files the agent reads are the rest of its input.
const OWN_TEXT_BUDGET = 6_000;

// The part of a prompt that is the task's or the defect's own: from its heading to the next heading.
function ownSection(prompt: string): number {
  const at = Math.max(prompt.indexOf('## Your task:'), prompt.indexOf('## Your defect:'));
  if (at < 0) return 0;
  const next = prompt.indexOf('\n## ', at + 1);
  return (next < 0 ? prompt.length : next) - at;
}

// A later fix loop's prompt carries each stage's latest handoff whole and names the earlier ones: it
// stays within 1.25x of the first fix loop's, not a page longer a loop.
const GROWTH_TARGET = 1.25;

// In a run whose verify fails three times: the third fix loop's fix prompt against the first's, and
// teamline's own text in each stage's prompt (the last verify's and fix's, the longest) against its budget.
async function loopRows(): Promise<Comparison[]> {
  const { dir, env } = makeScratchRepo('teamline-bench-handoffs-', {
    'README.md': '# handoffs\n',
    'scenario.json': JSON.stringify({ plan: { count: 2 }, verify: { failPasses: 3 } }),
    '.team/config.json': JSON.stringify({ agents: { sim: { adapter: 'sim', scenario: 'scenario.json' } } }),
  });
  await execa(process.execPath, [CLI, '2:executor', 'add input validation to the API and document it', '--agent', 'sim'], { cwd: dir, env, reject: false, stdin: 'ignore' });
  const attempts = resolveRun(dir, undefined).attemptsDir;
  const prompt = (id: string) => readFileSync(join(attempts, id, 'a1', 'prompt.md'), 'utf8');
  const size = (id: string) => prompt(id).length;
  const ids = readdirSync(attempts);
  const fixes = ids.filter((id) => /^fix-\d+-/.test(id)).sort();
  const verifies = ids.filter((id) => /^verify-\d+$/.test(id)).sort();
  if (fixes.length < 3) throw new Error(`the handoffs run made ${fixes.length} fix tasks, not 3`);
  const [first, third] = [fixes[0]!, fixes[2]!];
  const growth: Comparison = { name: 'handoff growth', detail: `the fix prompt of fix loop 3 (${third}) vs fix loop 1 (${first}), a run whose verify fails 3 times`, ms: size(third), baselineMs: size(first), target: GROWTH_TARGET, unit: 'chars' };
  const task = 'add input validation to the API and document it';
  const own = (id: string) => {
    const text = prompt(id);
    return text.length - ownSection(text) - (text.split(task).length - 1) * task.length;
  };
  const stages: Array<[string, string]> = [['team-plan', 'plan'], ['team-prd', 'prd'], ['team-exec', 't1'], ['team-verify', verifies.at(-1)!], ['team-fix', third]];
  const rows = stages.filter(([, id]) => ids.includes(id)).map(([stage, id]): Comparison => ({ name: `own text ${stage.slice(5)}`, detail: `teamline's own text in ${id}'s prompt (all but the run's task and the task's own section), against a budget of ${OWN_TEXT_BUDGET} chars`, ms: own(id), baselineMs: OWN_TEXT_BUDGET, target: 1, unit: 'chars' }));
  return [growth, ...rows];
}

// The result protocol's fixed cost in an agent's output (issue 40): the keys and syntax of the result
// each stage's agent writes, beyond its own words: the least each stage's result holds once judged
// (every field the protocol names, its words empty, one defect, task or criterion where the stage
// needs one), as teamline reads it back. Against a budget of 400 chars (about 100 tokens): the
// summary, evidence and next are words an agent writes at its end anyway.
const RESULT_SYNTAX_BUDGET = 400;
const LEAST_RESULTS: Record<ResultKind, object> = {
  'team-plan': { tasks: [{ id: 't1', title: '', description: '', blockedBy: [], acceptance: [''] }] },
  'team-prd': { acceptance: { t1: [''] } },
  'team-exec': {},
  'team-fix': {},
  'team-verify': { verdict: 'fail', defects: [{ id: 'd1', description: '', task: 't1' }] },
  'ralph-review': { verdict: 'reject', reasons: [''] },
  explore: { findings: { files: [''], commands: [''], conventions: [''] } },
  'plan-architect': { notes: [''], risks: [''] },
  critic: { objections: [''], acceptance: { t1: [''] } },
  select: { pick: 'c1', reasons: [''] },
};

function resultSyntax(projectDir: string): Comparison {
  const sizes = Object.entries(LEAST_RESULTS).map(([kind, fields]) => {
    const judged = judgeResult(kind as ResultKind, { text: JSON.stringify({ status: 'completed', summary: '', ...fields }) }, '', projectDir);
    if (!judged.ok) throw new Error(`the least ${kind} result was refused: ${judged.reason}`);
    return [kind, JSON.stringify(judged.result).length] as const;
  });
  const [kind, most] = sizes.reduce((a, b) => (b[1] > a[1] ? b : a));
  const exec = sizes.find(([k]) => k === 'team-exec')![1];
  return { name: 'result syntax', detail: `the keys and syntax of a stage's result, its words empty: the largest (${kind}) against a budget of 400 chars; an exec result's ${exec}`, ms: most, baselineMs: RESULT_SYNTAX_BUDGET, target: 1, unit: 'chars' };
}
