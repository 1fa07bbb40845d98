// `team init` and how each agent CLI will find `team`: the caller's PATH, a login shell's for codex,
// or the absolute path `--bin` writes into every file.
import { chmodSync, existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL, binFolder, homeWithLoginPath, removeFolders, runInit, tempFolder } from '../helpers/init.js';
import { makeProject, removeProjects } from '../helpers/project.js';
import { CLI } from '../helpers/team.js';

afterEach(() => {
  removeProjects();
  removeFolders();
});

const BASH = realpathSync('/bin/bash');
// Not on PATH: the path this team was started by. On PATH but not a login shell's (codex): as the
// README says it, the team the shell finds, never the clone's file behind a link.
const FIX = `install it with \`npm install -g .\` in a clone of teamline, or write its absolute path into the files with \`team init --bin ${CLI}\``;
const FIX_FOUND = `install it with \`npm install -g .\` in a clone of teamline, or write its absolute path into the files with \`team init --bin "$(command -v team)"\``;

describe('team init: where the CLIs find team', () => {
  it('warns when team is not on PATH, naming the CLIs, the install command and the --bin of this team', async () => {
    const project = makeProject();
    // A real PATH without team (bash only), whatever is installed on the machine.
    const without = await runInit(project.dir, ['--claude', '--opencode', '--gemini'], { PATH: binFolder([], { bash: BASH }) });
    expect(without.exitCode).toBe(0);
    expect(without.stderr).toBe(`team init: \`team\` is not on PATH, so claude, opencode and gemini cannot run it: ${FIX}\n`);
    expect(readFileSync(join(project.dir, '.claude/commands/team.md'), 'utf8')).toContain('allowed-tools: Bash(team:*)');
    const found = await runInit(project.dir, ['--claude', '--opencode', '--gemini'], { PATH: binFolder(['team']) });
    expect(found.stderr).toBe('');
  });

  it("warns for codex when a login shell's PATH lacks team though the current PATH has it", async () => {
    const project = makeProject();
    const bin = binFolder(['team'], { bash: BASH });
    // /etc/profile resets PATH; this profile then sets one without team, as /etc/profile does for most users.
    const lost = await runInit(project.dir, ['--codex', '--claude'], { PATH: bin, HOME: homeWithLoginPath(tempFolder('teamline-empty-')) });
    expect(lost.exitCode).toBe(0);
    expect(lost.stderr).toBe(`team init: \`team\` is not on a login shell's PATH (\`bash -lc 'command -v team'\` finds nothing), where codex runs its commands: ${FIX_FOUND}\n`);
    const kept = await runInit(project.dir, ['--codex', '--claude'], { PATH: bin, HOME: homeWithLoginPath(`${bin}:/usr/bin:/bin`) });
    expect(kept.stderr).toBe('');
  });

  it('--bin writes the absolute path into every file in place of the word team, and needs no PATH', async () => {
    const project = makeProject();
    const team = project.write('tools/team', '#!/bin/sh\nexit 0\n');
    chmodSync(team, 0o755);
    const result = await runInit(project.dir, ['--claude', '--opencode', '--gemini', '--codex', '--bin', 'tools/team']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const read = (path: string) => readFileSync(join(project.dir, path), 'utf8');
    const claude = read('.claude/commands/team.md');
    expect(claude).toContain(`\nallowed-tools: Bash(${team}:*)\n`);
    expect(claude).toContain(`\`${team} [N:agent-type] "<task>" --detach\``);
    expect(claude).toContain(`\`${team} wait --run <id> --timeout 100\``);
    expect(claude).toContain(`exactly as printed, with \`${team}\` in place of the leading \`team\``);
    expect(read('.claude/commands/ralph.md')).toContain(`\`${team} ralph [N:agent-type] "<task>" --detach\``);
    expect(read('.gemini/commands/cancel.toml')).toContain(`Run \`${team} cancel\``);
    expect(read('.agents/skills/team/SKILL.md')).toContain(`\`${team} cancel\` (\`--run <id>\`, \`--force\`)`);
    expect(read('.codex/rules/team.rules')).toContain(`prefix_rule(\n    pattern = ["${team}"],\n    decision = "allow",\n)\n`);
    // No command left that a shell would look up as the bare word (but the line `team wait` prints, quoted as printed).
    for (const path of ALL) expect(read(path), path).not.toMatch(/`team (?!init |wait --run <id> --since <N> --round <K> --timeout <S>`)|Bash\(team:/);
    expect(result.stdout).toContain(`\`team init --gemini --global --bin ${team}\``);
  });

  it('--bin --global writes the path into the gemini policy and the codex rule of the user', async () => {
    const project = makeProject();
    const home = tempFolder('teamline-home-');
    const team = join(binFolder(['team']), 'team');
    const result = await runInit(project.dir, ['--global', '--gemini', '--codex', '--bin', team], { HOME: home });
    expect(result.exitCode, result.stderr).toBe(0);
    const toml = await execa('python3', ['-c', 'import sys, tomllib, json; print(json.dumps(tomllib.load(open(sys.argv[1], "rb"))))', join(home, '.gemini/policies/team.toml')]);
    expect(JSON.parse(toml.stdout)).toEqual({ rule: [{ toolName: 'run_shell_command', commandPrefix: team, decision: 'allow', priority: 100 }] });
    expect(readFileSync(join(home, '.codex/rules/team.rules'), 'utf8')).toContain(`pattern = ["${team}"]`);
  });

  it('--bin refuses a path that does not exist, is not executable, or that a shell would split, writing nothing', async () => {
    const project = makeProject();
    const plain = project.write('tools/plain', 'not a program\n');
    const spaced = project.write('my tools/team', '#!/bin/sh\n');
    chmodSync(spaced, 0o755);
    const cases: [string, string][] = [
      [join(project.dir, 'tools/missing'), `team init --bin: ${join(project.dir, 'tools/missing')} does not exist or is not a file\n`],
      [join(project.dir, 'tools'), `team init --bin: ${join(project.dir, 'tools')} does not exist or is not a file\n`],
      [plain, `team init --bin: ${plain} is not executable\n`],
      [spaced, `team init --bin: "${spaced}" has a character a shell would split or expand; name a path without it (a symlink to team will do)\n`],
    ];
    for (const [bin, message] of cases) {
      const result = await runInit(project.dir, ['--claude', '--bin', bin]);
      expect(result.exitCode, bin).toBe(2);
      expect(result.stderr).toBe(message);
    }
    expect(existsSync(join(project.dir, '.claude'))).toBe(false);
    expect(existsSync(join(project.dir, '.team'))).toBe(false);
  });
});
