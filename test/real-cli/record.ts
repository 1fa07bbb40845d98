// Records real CLI output as fixtures: with TEAMLINE_RECORD_FIXTURES=1, each attempt's output.log
// of a run is copied to test/fixtures/cli/<cli>/real-<label>-<task>.txt.
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentProject } from '../helpers/agent-project.js';
import { ROOT } from '../helpers/team.js';

// Copies the attempts' output of the project's latest run (a no-op unless recording).
export function saveFixtures(cli: string, project: AgentProject, label = 'run'): void {
  if (process.env.TEAMLINE_RECORD_FIXTURES !== '1') return;
  const attempts = join(project.dir, '.team/runs', project.runId(), 'attempts');
  if (!existsSync(attempts)) return;
  const target = join(ROOT, 'test/fixtures/cli', cli);
  mkdirSync(target, { recursive: true });
  for (const task of readdirSync(attempts)) {
    const log = join(attempts, task, 'a1', 'output.log');
    if (existsSync(log)) copyFileSync(log, join(target, `real-${label}-${task}.txt`));
  }
}
