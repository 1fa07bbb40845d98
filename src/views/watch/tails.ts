// The live view's last line of each lane for a run on the PostgreSQL store: the latest output-tail
// report of each attempt, read on from where the last look stopped.
import { readWorkerNews } from '../../store/pg-reports.js';
import type { PgStore } from '../../store/pg-store.js';
import { workerWord } from '../../remote/worker-news.js';

// The last output line of each attempt, as its worker reported it, read on from where the last look stopped.
export class OutputTails {
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
