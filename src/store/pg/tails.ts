// The live view's last line of each lane on the PostgreSQL store: the latest output-tail report of
// each attempt, read on from where the last look stopped.
import { workerWord } from '../../domain/worker-word.js';
import type { Tails } from '../types.js';
import { readWorkerNews } from './reports.js';
import type { Transactor } from './transactor.js';

export class OutputTails implements Tails {
  private position = 0;
  private readonly lines = new Map<string, string>();

  constructor(
    private readonly store: Transactor,
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
