// The built `team` CLI reads an agent's result file only when it is a regular file of the attempt
// folder: a FIFO never blocks the run, a link is never followed, a parse error never quotes the text.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeProjects, type StatusJson } from '../helpers/project.js';
import { allRoles, makeSimProject, shellAgent, type SimProject } from '../helpers/sim-project.js';
import type { TeamResult } from '../helpers/team.js';

// Outside the project: a file holding a valid result, and one holding what must never be copied.
const outside = mkdtempSync(join(tmpdir(), 'teamline-outside-'));
const OUTSIDE_RESULT = join(outside, 'result.json');
const OUTSIDE_SECRET = join(outside, 'shadow');
writeFileSync(OUTSIDE_RESULT, JSON.stringify({ status: 'completed', summary: 'adopted from outside', evidence: 'outside' }));
writeFileSync(OUTSIDE_SECRET, 'root:OUTSIDE-SHADOW-LINE:19000:0:99999:7:::\n');

const SCENARIO = {
  plan: {
    tasks: [
      { id: 'fifo', title: 'Leaves a FIFO as its result', role: 'fifo-role', acceptance: ['a result'] },
      { id: 'link', title: 'Links its result to a valid result outside', role: 'link-role', acceptance: ['a result'] },
      { id: 'shadow', title: 'Links its result to a private file', role: 'shadow-role', acceptance: ['a result'] },
      { id: 'garbled', title: 'Writes private text that is not JSON', role: 'garbled-role', acceptance: ['a result'] },
      { id: 'pipe-out', title: 'Turns its output.log into a FIFO', role: 'pipe-role', acceptance: ['a result'] },
      { id: 'fine', title: 'Writes a good result', acceptance: ['a result'] },
    ],
  },
};

const CONFIG = {
  agents: {
    fifo: shellAgent('mkfifo "$TEAM_RESULT_FILE"'),
    link: shellAgent(`ln -s '${OUTSIDE_RESULT}' "$TEAM_RESULT_FILE"`),
    shadow: shellAgent(`ln -s '${OUTSIDE_SECRET}' "$TEAM_RESULT_FILE"`),
    garbled: shellAgent(`printf 'PRIVATE {' > "$TEAM_RESULT_FILE"`),
    // The output file sits beside the result file; the wrapper keeps writing to the one it opened.
    pipeOut: shellAgent('out="$(dirname "$TEAM_RESULT_FILE")/output.log"; rm -f "$out"; mkfifo "$out"; sleep 1'),
  },
  roles: allRoles('sim', { 'fifo-role': 'fifo', 'link-role': 'link', 'shadow-role': 'shadow', 'garbled-role': 'garbled', 'pipe-role': 'pipeOut' }),
  team: { maxTaskAttempts: 1 },
};

// Every file under `dir`, read as text (FIFOs and links are skipped: reading them is the bug under test).
function allText(dir: string): string {
  let text = '';
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && statSync(path).isFile()) text += readFileSync(path, 'utf8');
  }
  return text;
}

afterAll(() => {
  removeProjects();
  rmSync(outside, { recursive: true, force: true });
});

describe('pipeline result files', () => {
  let project: SimProject;
  let result: TeamResult;
  let status: StatusJson;

  beforeAll(async () => {
    project = makeSimProject(SCENARIO, CONFIG);
    result = await project.team('6:executor', 'read only what is safe to read', '--max-fix-loops', '0');
    status = project.statusView();
  });

  const onlyAttempt = (task: string) => {
    const view = status.tasks.find((t) => t.id === task);
    expect(view, `task ${task}`).toBeDefined();
    return view!.attempts[0]!;
  };

  it('ends the run instead of blocking on a FIFO result, failing that attempt and naming why', () => {
    expect(result.exitCode, result.stderr).toBe(1);
    expect(onlyAttempt('fifo').status).toBe('failed');
    expect(onlyAttempt('fifo').evidence).toContain('not a regular file (a FIFO)');
  });

  it('refuses a result that is a symbolic link, even to a valid result, naming the link', () => {
    expect(onlyAttempt('link').status).toBe('failed');
    expect(onlyAttempt('link').evidence).toContain('a symbolic link');
    expect(allText(project.runDir(status.run.run_id))).not.toContain('adopted from outside');
  });

  it('never copies what a linked result points at into any file of the run', () => {
    expect(onlyAttempt('shadow').status).toBe('failed');
    expect(onlyAttempt('shadow').evidence).toContain('a symbolic link');
    expect(allText(project.runDir(status.run.run_id))).not.toContain('OUTSIDE-SHADOW-LINE');
  });

  it('says a result is not JSON without quoting its text anywhere in the run', () => {
    expect(onlyAttempt('garbled').status).toBe('failed');
    expect(onlyAttempt('garbled').evidence).toContain('not valid JSON');
    // The agent's own folder keeps what it wrote; nothing the runtime writes repeats it.
    const run = project.runDir(status.run.run_id);
    const written = allText(run).replace(readFileSync(join(run, 'attempts', 'garbled', 'a1', 'result.json'), 'utf8'), '');
    expect(written).not.toContain('PRIVATE');
  });

  it('never opens an output.log turned into a FIFO in a way that blocks: the attempt fails with no result', () => {
    expect(onlyAttempt('pipe-out').status).toBe('failed');
    expect(onlyAttempt('pipe-out').evidence).toContain('no result');
  });

  it('still completes the task whose result is a good regular file', () => {
    expect(onlyAttempt('fine').status).toBe('completed');
  });
});
