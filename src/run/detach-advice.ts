// What to say when `--detach` cannot work here (this command's process namespace ends with it):
// only advice that works in this place. In Codex's sandbox, the rule `team init --codex` writes in
// .codex/rules/ lets `team` run outside the sandbox only once the project is trusted; running
// without --detach helps only where the project's run folder can be written.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runsDir } from '../log/write.js';
import { runsWriteProblem } from './writable.js';

// The sentence after "--detach: <why>; ".
export function detachAdvice(projectDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const inCodex = env.CODEX_SANDBOX !== undefined || env.CODEX_SANDBOX_NETWORK_DISABLED !== undefined;
  const outside = inCodex ? codexStep(projectDir) : 'run `team` outside the sandbox';
  const writable = runsWriteProblem(projectDir, runsDir(projectDir)) === undefined;
  return writable ? `${outside}, or run it without --detach (it then runs in this command)` : `${outside} (without --detach it cannot run here either: ${dirname(runsDir(projectDir))} is read-only in this sandbox)`;
}

// Codex's missing step: the rule file, then trusting the project (codex reads project rules only then).
function codexStep(projectDir: string): string {
  const rules = join(projectDir, '.codex', 'rules');
  const hasRule = existsSync(rules) && readdirSync(rules).some((name) => name.endsWith('.rules'));
  const trust = `trust the project in Codex (answer yes when codex asks whether to trust ${projectDir}, or add \`[projects."${projectDir}"]\` with \`trust_level = "trusted"\` to ~/.codex/config.toml), so that the rule in .codex/rules/ runs \`team\` outside the sandbox`;
  return hasRule ? trust : `run \`team init --codex\` (it writes a rule in .codex/rules/ that lets \`team\` run outside Codex's sandbox), then ${trust}`;
}
