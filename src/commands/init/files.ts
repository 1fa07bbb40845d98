// Where and in which format each agent CLI reads custom commands (and, for Codex and Gemini, the
// rule that lets them run `team`), and the files `team init` writes there.
import { join } from 'node:path';
import { codexSkill, COMMAND_TEXTS } from './texts.js';

export const CLIS = ['claude', 'opencode', 'gemini', 'codex'] as const;
export type Cli = (typeof CLIS)[number];

export interface InitFile {
  cli: Cli;
  /** Absolute path. */
  path: string;
  text: string;
}

// A YAML double-quoted scalar (JSON's string syntax is valid YAML).
const yaml = (value: string) => JSON.stringify(value);

// The files for one CLI under `root` (the project, or the home folder with --global); `team` is how
// the files name teamline's command: the word `team`, or the absolute path given to --bin.
export function filesFor(cli: Cli, root: string, global: boolean, team = 'team'): InitFile[] {
  switch (cli) {
    case 'claude':
      // Claude Code: .claude/commands/<name>.md; `allowed-tools` lets the command run `team` only.
      return COMMAND_TEXTS.map((c) => ({
        cli,
        path: join(root, '.claude', 'commands', `${c.name}.md`),
        text: `---\ndescription: ${yaml(c.description)}\nargument-hint: ${yaml(c.argumentHint)}\nallowed-tools: Bash(${team}:*)\n---\n\n${c.body('$ARGUMENTS', team)}`,
      }));
    case 'opencode':
      // OpenCode: .opencode/commands/<name>.md (project) or ~/.config/opencode/commands/ (global).
      return COMMAND_TEXTS.map((c) => ({
        cli,
        path: join(root, ...(global ? ['.config', 'opencode'] : ['.opencode']), 'commands', `${c.name}.md`),
        text: `---\ndescription: ${yaml(c.description)}\n---\n\n${c.body('$ARGUMENTS', team)}`,
      }));
    case 'gemini': {
      // Gemini CLI: .gemini/commands/<name>.toml with `description` and `prompt`; {{args}} are the arguments.
      const commands = COMMAND_TEXTS.map((c) => ({
        cli,
        path: join(root, '.gemini', 'commands', `${c.name}.toml`),
        text: `description = ${JSON.stringify(c.description)}\nprompt = '''\n${c.body('{{args}}', team)}'''\n`,
      }));
      // The policy goes to the user's folder only: gemini 0.61 ignores a project's .gemini/policies/.
      return global ? [...commands, { cli, path: join(root, '.gemini', 'policies', 'team.toml'), text: geminiPolicy(team) }] : commands;
    }
    case 'codex':
      // Codex (0.117 and later has no custom prompts): a skill, invoked as $team, that takes no arguments;
      // and the rule that runs `team` outside the sandbox (.codex/rules/ of a trusted project, or ~/.codex/rules/).
      return [
        { cli, path: join(root, '.agents', 'skills', 'team', 'SKILL.md'), text: codexSkill(team) },
        { cli, path: join(root, '.codex', 'rules', 'team.rules'), text: codexRule(team) },
      ];
  }
}

// Codex's execpolicy rule (Starlark): commands whose first word is `team` run outside the sandbox.
function codexRule(team: string): string {
  return `# Written by \`team init --codex\`: lets Codex run teamline's \`team\` outside its sandbox, where a
# detached orchestrator can write .team/ and .git and outlive the command. Rules in a project's
# .codex/rules/ apply only when the project is trusted in Codex.
prefix_rule(
    pattern = [${JSON.stringify(team)}],
    decision = "allow",
)
`;
}

// Gemini's user policy: shell commands that start with `team` run without asking (headless
// gemini, which cannot ask, offers no shell tool for a command no policy allows).
function geminiPolicy(team: string): string {
  return `# Written by \`team init --gemini --global\`: lets gemini run teamline's \`team\` commands.
[[rule]]
toolName = "run_shell_command"
commandPrefix = ${JSON.stringify(team)}
decision = "allow"
priority = 100
`;
}
