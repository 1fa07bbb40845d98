// The steps a CLI needs once beyond the files `team init` writes (trusting a folder, a user policy),
// each said once per `team init`.
import type { Cli } from './files.js';

const GEMINI_TRUST = 'gemini asks at its first start in a folder; headless, GEMINI_CLI_TRUST_WORKSPACE=true trusts it';

// Lines for the CLIs set up under `root`; `team` is how the files name teamline.
export function setupNotes(clis: Cli[], root: string, global: boolean, team: string): string[] {
  const notes: string[] = [];
  if (clis.includes('codex') && !global) {
    notes.push(`codex: the rule in .codex/rules/team.rules (\`team\` runs outside the sandbox) applies only when this project is trusted in Codex: say yes when codex asks at its first start here, or add \`[projects.${JSON.stringify(root)}] trust_level = "trusted"\` to ~/.codex/config.toml`);
  }
  if (clis.includes('gemini')) {
    const bin = team === 'team' ? '' : ` --bin ${team}`;
    notes.push(
      global
        ? `gemini: the policy ~/.gemini/policies/team.toml lets gemini run \`team\`; headless gemini also needs the project folder trusted (${GEMINI_TRUST})`
        : `gemini: headless gemini offers its shell tool only in a trusted folder and for a command a user policy allows: trust this folder (${GEMINI_TRUST}) and run \`team init --gemini --global${bin}\` once for the policy ~/.gemini/policies/team.toml (gemini ignores a project's .gemini/policies/)`,
    );
  }
  return notes;
}
