// Keeps the live view current until the run ends or the person presses q: in place on a terminal,
// plain lines of what changed otherwise.
import { createLogUpdate } from 'log-update';
import { MIN_COLUMNS, plainFacts, renderFrame } from './frame.js';
import type { WatchModel } from './model.js';

export interface LiveOptions {
  out: NodeJS.WriteStream;
  /** Read for q (and Ctrl-C) when it is a terminal. */
  input?: NodeJS.ReadStream;
  intervalMs: number;
  /** Redraw in place (a terminal); otherwise plain lines. */
  tty: boolean;
  footer?: string;
}

// Shows the run `load` reads (from its files or from PostgreSQL) each tick; resolves with why it stopped showing it.
export async function watchRun(load: () => WatchModel | Promise<WatchModel>, options: LiveOptions): Promise<'ended' | 'quit'> {
  const view = makeLiveView(options);
  let wake: (() => void) | undefined;
  let quit = false;
  const keys = listenForQuit(options.input, () => {
    quit = true;
    wake?.();
  });
  try {
    for (;;) {
      const model = await load();
      view.show(model);
      if (model.ended) return 'ended';
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.intervalMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (quit) return 'quit';
    }
  } finally {
    keys();
    view.done();
  }
}

// A view that draws models: log-update on a wide terminal, new plain lines otherwise.
export function makeLiveView(options: Pick<LiveOptions, 'out' | 'tty' | 'footer'>): { show(model: WatchModel): void; done(): void } {
  const update = createLogUpdate(options.out, { showCursor: false });
  const printed = new Set<string>();
  let drawn = false;
  return {
    show(model) {
      const columns = options.out.columns ?? 0;
      if (options.tty && columns >= MIN_COLUMNS) {
        update(renderFrame(model, columns, options.footer).join('\n'));
        drawn = true;
        return;
      }
      if (drawn) update.clear();
      drawn = false;
      for (const fact of plainFacts(model)) {
        if (printed.has(fact)) continue;
        printed.add(fact);
        options.out.write(`${fact}\n`);
      }
    },
    done() {
      if (drawn) update.done();
    },
  };
}

// q or Ctrl-C on a terminal's keyboard; returns the function that gives the terminal back.
function listenForQuit(input: NodeJS.ReadStream | undefined, onQuit: () => void): () => void {
  if (!input?.isTTY) return () => {};
  const onData = (data: Buffer) => {
    const text = data.toString('utf8');
    if (text.includes('q') || text.includes('Q') || text.includes('\u0003')) onQuit();
  };
  input.setRawMode(true);
  input.on('data', onData);
  input.resume();
  return () => {
    input.off('data', onData);
    input.setRawMode(false);
    input.pause();
  };
}
