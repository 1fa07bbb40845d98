// Where and in which format each agent CLI reads custom commands, and the files `team init` writes there.
import { join } from 'node:path';
import { codexSkill, COMMAND_TEXTS } from './init-texts.js';

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

// The files for one CLI under `root` (the project, or the home folder with --global).
export function filesFor(cli: Cli, root: string, global: boolean): InitFile[] {
  switch (cli) {
    case 'claude':
      // Claude Code: .claude/commands/<name>.md; `allowed-tools` lets the command run `team` only.
      return COMMAND_TEXTS.map((c) => ({
        cli,
        path: join(root, '.claude', 'commands', `${c.name}.md`),
        text: `---\ndescription: ${yaml(c.description)}\nargument-hint: ${yaml(c.argumentHint)}\nallowed-tools: Bash(team:*)\n---\n\n${c.body('$ARGUMENTS')}`,
      }));
    case 'opencode':
      // OpenCode: .opencode/commands/<name>.md (project) or ~/.config/opencode/commands/ (global).
      return COMMAND_TEXTS.map((c) => ({
        cli,
        path: join(root, ...(global ? ['.config', 'opencode'] : ['.opencode']), 'commands', `${c.name}.md`),
        text: `---\ndescription: ${yaml(c.description)}\n---\n\n${c.body('$ARGUMENTS')}`,
      }));
    case 'gemini':
      // Gemini CLI: .gemini/commands/<name>.toml with `description` and `prompt`; {{args}} are the arguments.
      return COMMAND_TEXTS.map((c) => ({
        cli,
        path: join(root, '.gemini', 'commands', `${c.name}.toml`),
        text: `description = ${JSON.stringify(c.description)}\nprompt = '''\n${c.body('{{args}}')}'''\n`,
      }));
    case 'codex':
      // Codex (0.117 and later has no custom prompts): a skill, invoked as $team, that takes no arguments.
      return [{ cli, path: join(root, '.agents', 'skills', 'team', 'SKILL.md'), text: codexSkill() }];
  }
}
