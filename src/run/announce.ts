// Progress lines for the machine's own records.
import type { NewEvent } from '../log/schema.js';
import type { EventLog } from '../session/event-log.js';
import type { Progress } from '../session/progress.js';
import { terminalLine } from '../sys/terminal-text.js';

// Tells the person (and --json readers) about a record as it is written.
export function announceRecord(run: { readonly progress: Progress; readonly events: EventLog }, record: NewEvent): void {
  const p = run.progress;
  switch (record.event) {
    case 'stage_entered':
      p.emit({ type: 'stage', stage: record.stage, iteration: record.iteration, loop: record.loop }, `== ${record.stage}${record.loop ? ` (fix loop ${record.loop})` : ''}${record.iteration > 1 ? ` (iteration ${record.iteration})` : ''}`);
      break;
    case 'stage_skipped':
      p.emit({ type: 'stage.skipped', stage: record.stage, reason: record.reason }, `-- ${record.stage} skipped: ${record.reason}`);
      break;
    case 'fix_loop_started':
      p.emit({ type: 'fix.loop', loop: record.loop, defects: record.defects.length }, [`   fix loop ${record.loop}: ${record.defects.length} defect(s)`, ...defectLines(record.defects)].join('\n'));
      break;
    case 'iteration_started':
      p.emit({ type: 'iteration', iteration: record.iteration }, `== ralph iteration ${record.iteration}`);
      break;
    case 'workers_sized':
      p.emit({ type: 'workers.sized', asked: record.asked, width: record.width, workers: record.workers }, `   ${record.asked} workers asked, the plan is ${record.width} wide: ${record.workers.length} work on it (${record.workers.join(', ')})`);
      break;
    case 'task_blocked':
      p.emit({ type: 'task.blocked', task: record.task_id, reason: record.reason }, `✘ ${record.task_id} failed: ${record.reason}`);
      break;
    case 'run_completed':
    case 'run_failed':
    case 'run_cancelled':
    case 'run_stopped':
      // Told once it is in the log: the live view then draws its last frame from the log.
      run.events.afterFlush(() => p.emit({ type: record.event.replace('_', '.'), ...record }));
      break;
    default:
      break;
  }
}

// How many defects the fix loop's start names, one line each; the handoff has them all.
const DEFECTS_SHOWN = 5;

function defectLines(defects: Array<{ id: string; description: string; task?: string }>): string[] {
  const lines = defects.slice(0, DEFECTS_SHOWN).map((d) => {
    const text = terminalLine(d.description).replace(/\s+/g, ' ').trim();
    return `     - ${d.id}${d.task ? ` (${d.task})` : ''}: ${text.length > 160 ? `${text.slice(0, 159)}…` : text}`;
  });
  if (defects.length > DEFECTS_SHOWN) lines.push(`     … ${defects.length - DEFECTS_SHOWN} more in the verify handoff`);
  return lines;
}
