// Hand-made event files, for tests that put what a crash, a bug or a person could leave in a run folder.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeStamp, makeToken } from '../../src/log/time.js';

// A file name the reader accepts, sorting after every file written before it.
export function eventFileName(event: string, task = 'run', attempt = 0): string {
  return `${makeStamp()}-${event}-${task}-a${attempt}-${makeToken()}.json`;
}

// A complete task event of the seed's shape; `fields` override any of it.
export function taskEvent(runId: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    event: 'task_finished',
    at: new Date().toISOString(),
    run_id: runId,
    task_id: 't1',
    stage: 'team-exec',
    agent: 'sim',
    attempt: 1,
    status: 'completed',
    session: '',
    parent_session: '',
    inputs: [],
    artifacts: [],
    evidence: '',
    next: '',
    ...fields,
  };
}

// Writes `text` as `name` straight into a run's events folder, bypassing the store.
export function writeRawEvent(eventsDir: string, name: string, text: string): string {
  writeFileSync(join(eventsDir, name), text);
  return name;
}
