// The foreground run's progress: the live view on a wide terminal, today's line per event otherwise.
import { runPaths } from '../checkpoint/store.js';
import { makeProgress, type Progress } from '../runtime/progress.js';
import { MIN_COLUMNS } from './frame.js';
import { makeLiveView } from './live.js';
import { loadWatchModel } from './model.js';

// How often the foreground view redraws.
const REDRAW_MS = 1000;
const ENDS = new Set(['run.completed', 'run.failed', 'run.cancelled', 'run.stopped']);

// Progress for `team` and `team resume`: --json and non-terminals keep the plain lines.
export function makeRunProgress(options: { json: boolean; projectDir: string }): Progress {
  const base = makeProgress({ json: options.json });
  const out = process.stderr;
  if (options.json || !out.isTTY || (out.columns ?? 0) < MIN_COLUMNS) return base;
  let stop: (() => void) | undefined;
  let ended = false;
  return {
    emit(event, line) {
      if (!stop && !ended && (event.type === 'run.started' || event.type === 'run.resumed') && typeof event.run === 'string') {
        stop = startView(runPaths(options.projectDir, event.run), out);
        return;
      }
      if (stop && ENDS.has(event.type)) {
        stop();
        stop = undefined;
        ended = true;
      }
      // While the view is up it shows what the lines would say.
      if (!stop) base.emit(event, line);
    },
  };
}

function startView(paths: ReturnType<typeof runPaths>, out: NodeJS.WriteStream): () => void {
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
  return () => {
    clearInterval(timer);
    draw();
    view.done();
  };
}
