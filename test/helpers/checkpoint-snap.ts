// A sim agent that first copies the project's opchain checkpoint, so a test sees every version a run wrote.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './team.js';

// The folder in the project where each attempt leaves its copy, named `<stage>-<task>-a<attempt>.json`.
export const SNAP_DIR = 'checkpoint-snaps';

// A command agent: copy `.checkpoints/team.checkpoint.json` (as the attempt starts), then play the sim's scenario.
export function snapshottingSim(projectDir: string): { adapter: 'command'; command: string; args: string[] } {
  const sim = join(ROOT, 'dist/workers/sim/sim-agent.js');
  const script =
    `mkdir -p "${projectDir}/${SNAP_DIR}" && cp "${projectDir}/.checkpoints/team.checkpoint.json" "${projectDir}/${SNAP_DIR}/$TEAM_STAGE-$TEAM_TASK_ID-a$TEAM_ATTEMPT.json" && ` +
    `TEAM_SIM_SCENARIO="${projectDir}/scenario.json" exec node "${sim}"`;
  return { adapter: 'command', command: 'sh', args: ['-c', script] };
}

// Every copy the attempts made: file name and text.
export function readSnaps(projectDir: string): Array<{ name: string; text: string }> {
  const dir = join(projectDir, SNAP_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }));
}
