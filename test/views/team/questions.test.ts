// Which questions to the lead need the person: answered ones do not, and neither do those whose
// task has ended (no answer reaches it, and `team say` refuses an ended task). The view is built by
// hand here: the fold's team facts and the tasks' statuses are all openQuestions reads.
import { describe, expect, it } from 'vitest';
import { newTeamFacts, type TeamMessage } from '../../../src/log/fold/team.js';
import type { RunView } from '../../../src/log/fold/fold.js';
import { openQuestions, questionLines } from '../../../src/views/team-lines.js';

function question(task: string, at: string): TeamMessage {
  return { key: `q-${task}`, at, from: task === 'a' ? 'worker-1' : 'worker-2', task, to: 'lead', text: `which way for ${task}?`, question: true };
}

function viewWith(messages: TeamMessage[], statuses: Record<string, string>): Pick<RunView, 'team' | 'tasks'> {
  const team = { ...newTeamFacts(), messages };
  const tasks = Object.entries(statuses).map(([id, status]) => ({ id, status }) as unknown as RunView['tasks'][number]);
  return { team, tasks };
}

describe('open questions to the lead', () => {
  it('keeps a question of a running task until the person answers it, and drops one whose task ended', () => {
    const view = viewWith([question('a', '2026-12-02T10:00:00.000Z'), question('b', '2026-12-02T10:00:01.000Z')], { a: 'running', b: 'completed' });
    expect(openQuestions(view).map((q) => q.task)).toEqual(['a']);
    expect(questionLines(view)).toEqual(['question from worker-1 (task a): which way for a? — answer with `team say --to a "…"`']);
    const answered = viewWith([...view.team.messages, { key: 'h1', at: '2026-12-02T10:00:02.000Z', from: 'human', to: 'a', text: 'this way', question: false }], { a: 'running', b: 'completed' });
    expect(openQuestions(answered)).toEqual([]);
  });
});
