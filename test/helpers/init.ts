// `team init` as a test runs it: the built CLI with only the environment given (no inherited PATH
// or HOME), the paths it writes, the notes it says once, and folders to put on PATH or use as HOME.
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { CLI } from './team.js';

const NAMES = ['team', 'ralph', 'cancel', 'team-status'];
// The files of `--claude`, and of every CLI set up in a project.
export const CLAUDE = NAMES.map((n) => `.claude/commands/${n}.md`);
export const ALL = [...CLAUDE, ...CLAUDE.map((p) => p.replace('.claude/', '.opencode/')), ...NAMES.map((n) => `.gemini/commands/${n}.toml`), '.agents/skills/team/SKILL.md', '.codex/rules/team.rules'];

// What `team init` says once for a project set up for codex, and for gemini.
export const codexNote = (dir: string) =>
  `codex: the rule in .codex/rules/team.rules (\`team\` runs outside the sandbox) applies only when this project is trusted in Codex: say yes when codex asks at its first start here, or add \`[projects."${dir}"] trust_level = "trusted"\` to ~/.codex/config.toml`;
export const geminiNote = (bin = '') =>
  `gemini: headless gemini offers its shell tool only in a trusted folder and for a command a user policy allows: trust this folder (gemini asks at its first start in a folder; headless, GEMINI_CLI_TRUST_WORKSPACE=true trusts it) and run \`team init --gemini --global${bin}\` once for the policy ~/.gemini/policies/team.toml (gemini ignores a project's .gemini/policies/)`;

// `team init` with only `env`: PATH and HOME default to a folder that does not exist and the project.
export async function runInit(cwd: string, args: string[], env: Record<string, string> = {}) {
  const result = await execa(process.execPath, [CLI, 'init', ...args], { cwd, env: { PATH: '/nonexistent', HOME: cwd, ...env }, extendEnv: false, reject: false, stripFinalNewline: false });
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

const made: string[] = [];

// A new empty folder, removed by `removeFolders`.
export function tempFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

// Removes the folders `tempFolder` made.
export function removeFolders(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

// A folder for PATH holding `executables` (scripts that exit 0) and `links` to real programs.
export function binFolder(executables: string[], links: Record<string, string> = {}): string {
  const dir = tempFolder('teamline-bin-');
  for (const name of executables) {
    writeFileSync(join(dir, name), '#!/bin/sh\nexit 0\n');
    chmodSync(join(dir, name), 0o755);
  }
  for (const [name, target] of Object.entries(links)) symlinkSync(target, join(dir, name));
  return dir;
}

// A HOME whose login shell profile sets PATH to `path` (a login bash reads ~/.bash_profile after /etc/profile).
export function homeWithLoginPath(path: string): string {
  const home = tempFolder('teamline-home-');
  writeFileSync(join(home, '.bash_profile'), `PATH="${path}"\nexport PATH\n`);
  return home;
}
