// What every attempt of one `team worker` shares: its store connections, backends and folder.
import type PgBoss from 'pg-boss';
import type { WorkerBackend } from '../../workers/types.js';
import type { LeaseHolder, PgStore } from '../store/attempt-queue.js';

// What every attempt of one worker shares.
export interface WorkerContext {
  store: PgStore;
  boss: PgBoss;
  /** Headless agents: each in its own process group. */
  backend: WorkerBackend;
  /** Agents whose config says tmux: a pane in the run's own private tmux server on this machine. */
  tmux: WorkerBackend;
  /** Runs with a tmux server here, and how many of their attempts run in it now. */
  tmuxRuns: Map<string, number>;
  holder: LeaseHolder;
  projectDir: string;
  /** The worker's own folder: attempts/<run>/<task>/a<n> are made under it. */
  folder: string;
  say(line: string): void;
}
