// The foreground run's progress: the live view on a wide terminal, today's line per event otherwise.
// The view's modules (log-update and its text measures cost ~100 ms to load) load only to be shown.
import { runPaths } from '../../log/write.js';
import { makeProgress, type Progress } from '../../session/progress.js';
import { MIN_COLUMNS } from './frame.js';

// How often the foreground view redraws.
const REDRAW_MS = 1000;
const ENDS = new Set(['run.completed', 'run.failed', 'run.cancelled', 'run.stopped']);

// Progress for `team` and `team resume`: --json and non-terminals keep the plain lines.
export function makeRunProgress(options: { json: boolean; projectDir: string }): Progress {
  const base = makeProgress({ json: options.json });
  const out = process.stderr;
  if (options.json || !out.isTTY || (out.columns ?? 0) < MIN_COLUMNS) return base;
  let view: LiveView | undefined;
  let ended = false;
  return {
    emit(event, line) {
      if (!view && !ended && (event.type === 'run.started' || event.type === 'run.resumed') && typeof event.run === 'string') {
        view = startView(runPaths(options.projectDir, event.run), out);
      }
      if (view && ENDS.has(event.type)) {
        view.stop();
        view = undefined;
        ended = true;
      }
      // While the view is up it shows what the lines would say.
      if (!view?.shown) base.emit(event, line);
    },
  };
}

interface LiveView {
  /** Up on the terminal (its modules loaded): lines would only scroll it away. */
  readonly shown: boolean;
  stop(): void;
}

function startView(paths: ReturnType<typeof runPaths>, out: NodeJS.WriteStream): LiveView {
  let stopped = false;
  let stopShown: (() => void) | undefined;
  const state: LiveView = {
    get shown() {
      return stopShown !== undefined;
    },
    stop() {
      stopped = true;
      stopShown?.();
      stopShown = undefined;
    },
  };
  void Promise.all([import('./live.js'), import('./model.js')]).then(([{ makeLiveView }, { loadWatchModel }]) => {
    if (stopped) return;
    const view = makeLiveView({ out, tty: true, footer: 'Ctrl-C cancels the run' });
    const draw = () => {
      try {
        view.show(loadWatchModel(paths));
      } catch {
        // A log caught mid-write is read again at the next tick.
      }
    };
    draw();
    const timer = setInterval(draw, REDRAW_MS);
    timer.unref();
    stopShown = () => {
      clearInterval(timer);
      draw();
      view.done();
    };
  });
  return state;
}
