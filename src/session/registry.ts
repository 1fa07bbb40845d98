// The run's workers: the handle of every started attempt (from the log and from this orchestrator),
// and the backends that reach them.
import { createProcessBackend } from '../../workers/process.js';
import { createTmuxBackend, killServer, resolveTarget } from '../../workers/tmux/index.js';
import type { WorkerBackend, WorkerHandle } from '../../workers/types.js';
import type { FoldState } from '../log/fold/fold.js';

export class WorkerRegistry {
  /** Handles of started workers by `task#attempt`. */
  private readonly handles: Map<string, WorkerHandle>;
  /** Process groups of the verify gates the log recorded (gate_spawned). */
  private readonly gateGroups: WorkerHandle[];
  private processBackend?: WorkerBackend;
  private tmuxBackend?: WorkerBackend;
  /** Where the tmux backend's server has its socket, once the backend is made: a server it started
   * for a pane that then failed to open is the run's too, with no handle to name it. */
  private tmuxDir?: string;

  // Knows every worker and gate group the fold of the log holds.
  constructor(fold: Pick<FoldState, 'handles' | 'gateGroups'>) {
    this.handles = new Map(fold.handles as Map<string, WorkerHandle>);
    this.gateGroups = [...(fold.gateGroups as WorkerHandle[])];
  }

  // Remembers the handle of an attempt's worker.
  record(taskId: string, attempt: number, handle: WorkerHandle): void {
    this.handles.set(`${taskId}#${attempt}`, handle);
  }

  // The handle of an attempt's worker, if it was started.
  get(taskId: string, attempt: number): WorkerHandle | undefined {
    return this.handles.get(`${taskId}#${attempt}`);
  }

  // Every handle known, in the order recorded.
  all(): WorkerHandle[] {
    return [...this.handles.values()];
  }

  // The verify gates' process groups the log recorded, in the order recorded.
  gates(): WorkerHandle[] {
    return [...this.gateGroups];
  }

  // The backend for new workers of one kind.
  backend(kind: 'headless' | 'tmux'): WorkerBackend {
    // New panes of a resumed run join the run's recorded server, wherever this shell's TMUX_TMPDIR points.
    if (kind === 'tmux') {
      this.tmuxDir ??= this.tmuxSocketDirs()[0] ?? resolveTarget('').socketDir;
      return (this.tmuxBackend ??= createTmuxBackend({ socketDir: this.tmuxDir }));
    }
    return (this.processBackend ??= createProcessBackend());
  }

  // Ends what the backends keep for launching; the workers they started are not touched.
  async close(): Promise<void> {
    await Promise.all([this.processBackend?.close?.(), this.tmuxBackend?.close?.()]);
  }

  // The backend that reaches a recorded worker.
  backendOf(handle: WorkerHandle): WorkerBackend {
    return this.backend(handle.backend === 'tmux' ? 'tmux' : 'headless');
  }

  // Every folder a tmux server of this run has its socket in (normally one).
  tmuxSocketDirs(): string[] {
    const recorded = this.all().flatMap((h) => (h.backend === 'tmux' ? [h.socketDir] : []));
    return [...new Set(this.tmuxDir === undefined ? recorded : [...recorded, this.tmuxDir])];
  }

  // Kills the run's tmux servers with everything in them; `failed` hears of one that could not be.
  async killTmuxServers(runId: string, failed: (error: unknown) => void = () => undefined): Promise<void> {
    for (const socketDir of this.tmuxSocketDirs()) await killServer(runId, { socketDir }).catch(failed);
  }
}
