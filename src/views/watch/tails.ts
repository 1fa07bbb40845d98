// The live view's last line of each lane: the tail of the attempt's output.log for a run of the
// files; on the PostgreSQL store, the latest output-tail report of each attempt, read on from where
// the last look stopped.
import { join } from 'node:path';
import { readWorkerNews } from '../../store/pg/reports.js';
import type { PgStore } from '../../store/pg/store.js';
import type { RunStore } from '../../store/types.js';
import { workerWord } from '../../remote/worker-news.js';
import { lastLine } from './model.js';

// Each attempt's last output line: read() looks again, of() answers from the last look.
export interface Tails {
  read(): Promise<void>;
  of(task: string, attempt: number): string;
}

// The tails of the run's attempts where its store keeps them.
export function openTails(store: RunStore, runId: string): Tails {
  if (store.kind === 'postgres') return new OutputTails(store as PgStore, runId);
  const dir = store.paths(runId).attemptsDir;
  return { read: async () => undefined, of: (task, attempt) => lastLine(join(dir, task, `a${attempt}`, 'output.log')) };
}

// The last output line of each attempt, as its worker reported it, read on from where the last look stopped.
class OutputTails implements Tails {
  private position = 0;
  private readonly lines = new Map<string, string>();

  constructor(
    private readonly store: PgStore,
    private readonly runId: string,
  ) {}

  async read(): Promise<void> {
    const news = await readWorkerNews(this.store, this.runId, this.position);
    for (const report of news.reports) {
      const line = report.body.line;
      if (report.kind === 'output-tail' && typeof line === 'string') this.lines.set(`${report.taskId}#${report.attempt}`, workerWord(line, ''));
    }
    this.position = news.position;
  }

  of(task: string, attempt: number): string {
    return this.lines.get(`${task}#${attempt}`) ?? '';
  }
}
