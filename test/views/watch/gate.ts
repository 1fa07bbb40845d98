// A gate for the watch tests' runs: an executor that prints a line, then works until the test opens
// the gate (a file outside the project, since each worker works in its own worktree), then writes
// a file of its task and completes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { shellAgent } from '../../helpers/sim-project.js';

export interface Gate {
  /** The `.team/config.json` agent entry of the held executor; `say` is its first line, before the task id. */
  executor(say: string): ReturnType<typeof shellAgent>;
  /** Lets every held executor (and those still to start) complete. */
  open(): void;
  /** Opens the gate and, once every held executor has had time to see it, removes its folder. */
  remove(): Promise<void>;
}

// A closed gate in a new temporary folder.
export function makeGate(): Gate {
  const dir = mkdtempSync(join(tmpdir(), 'teamline-gate-'));
  const file = join(dir, 'open');
  return {
    executor: (say) =>
      shellAgent(
        `echo "${say} $TEAM_TASK_ID"; i=0; while [ ! -e ${file} ]; do i=$((i+1)); [ $i -gt 3000 ] && exit 9; sleep 0.05; done; echo "$TEAM_TASK_ID" > "$TEAM_TASK_ID.txt"; ` +
          `printf '%s' '{"status":"completed","summary":"released","evidence":"the test released it"}' > "$TEAM_RESULT_FILE"`,
      ),
    open: () => writeFileSync(file, 'go\n'),
    async remove() {
      writeFileSync(file, 'go\n');
      // An executor looks every 50 ms.
      await sleep(250);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
