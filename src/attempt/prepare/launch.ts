// What an attempt's agent starts with, the same on this machine and on a team worker: the prompt in
// the attempt's folder, the team tools' context beside it, and the command its adapter builds.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getAdapter } from '../../../workers/adapters/index.js';
import { sim } from '../../../workers/sim/adapter.js';
import type { AgentAdapter, AgentConfig, LaunchSpec, PermissionLevel, Stage } from '../../../workers/types.js';
import { ANSWER_MS, writeToolsContext } from '../../team-tools/context.js';
import { hasTeamTools } from '../../../workers/adapters/team-tools.js';
import { teamServerFor } from './team-server.js';

// The agent's side of an attempt: what it is asked, by which adapter, at which permission.
export interface LaunchAsk {
  prompt: string;
  stage: Stage;
  agent: AgentConfig;
  adapter: AgentAdapter;
  permission: PermissionLevel;
  /** The project the adapter is told of (the sim agent finds its scenario there): the run's own. */
  projectDir: string;
}

// An attempt's own files in its folder.
export interface AttemptFiles {
  dir: string;
  promptFile: string;
  resultFile: string;
}

export function attemptFilesIn(dir: string): AttemptFiles {
  return { dir, promptFile: join(dir, 'prompt.md'), resultFile: join(dir, 'result.json') };
}

// The adapter of an agent's config (a config checked when it was read names a known one).
export function adapterOf(agent: AgentConfig): AgentAdapter {
  const adapter = getAdapter(agent.adapter, { sim });
  if (!adapter) throw new Error(`no adapter ${agent.adapter}`);
  return adapter;
}

// Whether the attempt's agent may call the team tools: given them, or a client of its own (the
// sim). Only such an attempt gets the tools' context file, and a desk (or a team worker's relay)
// taking its calls: a plain command is spared a file and a look at its folder every 100 ms.
export function takesToolCalls(ask: Pick<LaunchAsk, 'agent' | 'adapter'>): boolean {
  return hasTeamTools(ask.agent, ask.adapter) || ask.adapter.facts?.ownToolClient === true;
}

// Writes the prompt and, for an agent that may call them, the team tools' context into the spec's
// attempt folder, and sets the spec's command to the one the adapter builds. The prompt goes through
// the thread pool: many attempts start at once, and the file system's journal may make each wait.
export async function prepareLaunch(spec: LaunchSpec, ask: LaunchAsk): Promise<LaunchSpec> {
  const { promptFile, resultFile } = attemptFilesIn(spec.attemptDir);
  await mkdir(spec.attemptDir, { recursive: true });
  await writeFile(promptFile, ask.prompt);
  if (takesToolCalls(ask)) writeToolsContext(spec.attemptDir, { run_id: spec.runId, task_id: spec.taskId, attempt: spec.attempt, worker: spec.worker, stage: ask.stage, answer_ms: ANSWER_MS });
  const teamServer = teamServerFor(ask.agent, ask.adapter, spec.attemptDir);
  spec.command = ask.adapter.build({ prompt: ask.prompt, promptFile, resultFile, projectDir: ask.projectDir, agent: ask.agent, stage: ask.stage, permission: ask.permission, ...(teamServer && { teamServer }) });
  return spec;
}
