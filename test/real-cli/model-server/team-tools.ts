// The scripted model with the team tools: an exec attempt whose run task carries TEAM_TOOLS_MARK
// lists the tasks, reserves its file, tells the lead, notes its progress, writes the file with the
// CLI's own tool and reports through team_done. Each tool is found in the request's tool list by
// its suffix, as each CLI names MCP tools its own way (claude mcp__team__team_tasks, opencode
// team_team_tasks, …). Any other attempt keeps the plain scenario.
import type { PromptFacts, Step } from './scenario.js';

// The words of a run task that ask for the team tools scenario.
export const TEAM_TOOLS_MARK = 'with the team tools';

// What the scripted worker tells the lead.
export function leadMessage(taskId: string): string {
  return `${taskId}: reserved its file and started`;
}

// The names of every tool a request offers (any depth of its `tools`: the APIs nest them
// differently). A tool of a namespace (codex puts each MCP server's in one, "mcp__team") is
// named "<namespace>/<tool>".
export function toolNamesOf(body: Record<string, unknown>): string[] {
  const names: string[] = [];
  const walk = (value: unknown, namespace: string): void => {
    if (Array.isArray(value)) value.forEach((item) => walk(item, namespace));
    else if (value && typeof value === 'object') {
      const object = value as Record<string, unknown>;
      if (object.type === 'namespace' && typeof object.name === 'string') return walk(object.tools, `${object.name}/`);
      for (const [key, inner] of Object.entries(object)) {
        if (key === 'name' && typeof inner === 'string') names.push(`${namespace}${inner}`);
        else walk(inner, namespace);
      }
    }
  };
  walk(body.tools, '');
  return names;
}

// The offered tool whose name ends with `suffix` (team_tasks), if any.
export function findTool(names: string[], suffix: string): string | undefined {
  return names.find((name) => name === suffix || name.endsWith(`_${suffix}`) || name.endsWith(`/${suffix}`));
}

// A call of the offered tool whose name ends with `suffix`, or undefined when none is offered.
export function toolStep(toolNames: string[], suffix: string, args: Record<string, unknown>): Step | undefined {
  const name = findTool(toolNames, suffix);
  return name === undefined ? undefined : { kind: 'tool', name, args };
}

// A team tools run's plan: t1 and t2 in parallel, both reserving SHARED_FILE (the second to
// reserve it is told who holds it), and t3 after t1, to which t1 sends a message.
export const SHARED_FILE = 'src/shared.txt';
export const DEPENDENTS: Record<string, string> = { t1: 't3' };
export function teamToolsPlan(taskFile: (id: string) => string): Record<string, unknown>[] {
  return ['t1', 't2', 't3'].map((id) => ({ id, title: `write ${taskFile(id)}`, description: `Write ${taskFile(id)}.`, blockedBy: id === 't3' ? ['t1'] : [], acceptance: [`${taskFile(id)} exists`] }));
}

// What t1 tells the task that depends on it.
export function dependentMessage(from: string, to: string): string {
  return `${from} to ${to}: the shared file is yours once I am done`;
}

// Words of a tool answer that carries a shutdown request.
const SHUTDOWN = /shutdown/i;

// The team tools steps of an exec attempt, or undefined when the scenario does not apply. A
// shutdown request in a tool's answer is answered at once with team_fail.
export function teamToolSteps(facts: PromptFacts, toolNames: string[], outputs: string[], file: { path: string; relative: string; content: string }): Step[] | undefined {
  if (!facts.teamTools || facts.stage !== 'team-exec') return undefined;
  const tool = (suffix: string, args: Record<string, unknown>) => toolStep(toolNames, suffix, args);
  const dependent = DEPENDENTS[facts.taskId];
  const steps = [
    tool('team_tasks', {}),
    tool('team_reserve', { files: [file.relative, SHARED_FILE] }),
    tool('team_message', { to: 'lead', text: leadMessage(facts.taskId) }),
    ...(dependent ? [tool('team_message', { to: dependent, text: dependentMessage(facts.taskId, dependent) })] : []),
    tool('team_progress', { text: `writing ${file.relative}` }),
    { kind: 'write', path: file.path, content: file.content } satisfies Step,
    tool('team_done', { summary: `wrote ${file.relative}`, artifacts: [file.relative], evidence: 'team tools', next: '' }),
  ];
  if (!steps.every((step) => step !== undefined)) return undefined;
  const asked = outputs.findIndex((output) => SHUTDOWN.test(output));
  if (asked < 0) return steps as Step[];
  const stop = tool('team_fail', { summary: 'stopped: the lead asked for a shutdown', evidence: 'shutdown request', next: `finish ${file.relative}` })!;
  return [...(steps.slice(0, asked + 1) as Step[]), stop];
}
