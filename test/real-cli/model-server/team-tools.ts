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

// The team tools steps of an exec attempt, or undefined when the scenario does not apply.
export function teamToolSteps(facts: PromptFacts, toolNames: string[], file: { path: string; relative: string; content: string }): Step[] | undefined {
  if (!facts.teamTools || facts.stage !== 'team-exec') return undefined;
  const tool = (suffix: string, args: Record<string, unknown>): Step | undefined => {
    const name = findTool(toolNames, suffix);
    return name === undefined ? undefined : { kind: 'tool', name, args };
  };
  const steps = [
    tool('team_tasks', {}),
    tool('team_reserve', { files: [file.relative] }),
    tool('team_message', { to: 'lead', summary: leadMessage(facts.taskId) }),
    tool('team_progress', { note: `writing ${file.relative}` }),
    { kind: 'write', path: file.path, content: file.content } satisfies Step,
    tool('team_done', { status: 'completed', summary: `wrote ${file.relative}`, artifacts: [file.relative], evidence: 'team tools', next: '' }),
  ];
  return steps.every((step) => step !== undefined) ? steps : undefined;
}
