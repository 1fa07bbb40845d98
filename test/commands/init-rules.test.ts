// `team init`'s rules that let Codex and Gemini run `team`, the steps it says once, the command
// texts in the words `team wait` prints, and what init would write now (for `team doctor`).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { expectedInitFiles } from '../../src/commands/init/current.js';
import { binFolder, codexNote, geminiNote, removeFolders, runInit, tempFolder } from '../helpers/init.js';
import { makeProject, removeProjects } from '../helpers/project.js';

afterEach(() => {
  removeProjects();
  removeFolders();
});

const RULE = 'prefix_rule(\n    pattern = ["team"],\n    decision = "allow",\n)\n';
const count = (text: string, part: string) => text.split(part).length - 1;

describe('team init: rules, notes and words', () => {
  it('--codex writes the rule that runs team outside the sandbox, and says once that the project must be trusted', async () => {
    const project = makeProject();
    const result = await runInit(project.dir, ['--codex']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe(`created   .agents/skills/team/SKILL.md\ncreated   .codex/rules/team.rules\n${codexNote(project.dir)}\n`);
    expect(readFileSync(join(project.dir, '.codex/rules/team.rules'), 'utf8')).toMatch(new RegExp(`^(# [^\\n]*\\n)+${RULE.replace(/[()[\]]/g, '\\$&')}$`));
    const skill = readFileSync(join(project.dir, '.agents/skills/team/SKILL.md'), 'utf8');
    expect(skill).toContain('## Outside the sandbox\nRun every `team` command outside the sandbox');
    expect(skill).toContain('run it again with escalated permissions, outside the sandbox');
  });

  it('--codex --global writes the rule under ~/.codex/rules/, which needs no trust', async () => {
    const project = makeProject();
    const home = tempFolder('teamline-home-');
    const result = await runInit(project.dir, ['--codex', '--global'], { HOME: home });
    expect(result.stdout).toBe('created   ~/.agents/skills/team/SKILL.md\ncreated   ~/.codex/rules/team.rules\n');
    expect(readFileSync(join(home, '.codex/rules/team.rules'), 'utf8')).toContain(RULE);
    expect(existsSync(join(project.dir, '.codex'))).toBe(false);
  });

  it('--gemini --global writes the user policy allowing team; --gemini explains once the trust and the policy', async () => {
    const project = makeProject();
    const home = tempFolder('teamline-home-');
    const global = await runInit(project.dir, ['--gemini', '--global'], { HOME: home });
    expect(global.exitCode, global.stderr).toBe(0);
    expect(global.stdout).toContain('created   ~/.gemini/policies/team.toml\n');
    expect(count(global.stdout, 'gemini: ')).toBe(1);
    expect(global.stdout).toContain('gemini: the policy ~/.gemini/policies/team.toml lets gemini run `team`; headless gemini also needs the project folder trusted');
    const toml = await execa('python3', ['-c', 'import sys, tomllib, json; print(json.dumps(tomllib.load(open(sys.argv[1], "rb"))))', join(home, '.gemini/policies/team.toml')]);
    expect(JSON.parse(toml.stdout)).toEqual({ rule: [{ toolName: 'run_shell_command', commandPrefix: 'team', decision: 'allow', priority: 100 }] });

    const local = await runInit(project.dir, ['--gemini']);
    expect(local.stdout.split('\n').filter((line) => !line.startsWith('created '))).toEqual([geminiNote(), '']);
    expect(existsSync(join(project.dir, '.gemini/policies'))).toBe(false);
  });

  it('the command texts name each outcome by the words team wait prints, follow its next line, and report where the work is', async () => {
    const project = makeProject();
    await runInit(project.dir, ['--claude', '--gemini', '--codex'], { PATH: binFolder(['team']) });
    const texts = ['.claude/commands/team.md', '.claude/commands/ralph.md', '.gemini/commands/team.toml', '.agents/skills/team/SKILL.md'].map((p) => readFileSync(join(project.dir, p), 'utf8'));
    for (const text of texts) {
      for (const outcome of ['still running (it says "still running"; exit 5)', 'completed, failed or cancelled (its summary says COMPLETED, FAILED or CANCELLED; exit 0, 1 or 3)', 'needs a decision (its summary says STOPPED; exit 4)', 'nobody drives it (it says "nothing drives it"; exit 6)']) {
        expect(text).toMatch(new RegExp(`^   - ${outcome.replace(/[()]/g, '\\$&')}: `, 'm'));
      }
      expect(text).toContain('its words say how the');
      expect(text).toContain('then run the command its `next:` line gives, `team wait --run <id> --since <N> --round <K> --timeout <S>`, exactly as printed and without the words in parentheses after it: every call takes the latest `next:` line');
      expect(text).toContain("report from what `team wait` printed, without opening any file");
      expect(text).toContain("the handoffs' Decided, Risks and Remaining");
      expect(text).toContain('the branch `team/<id>`, which `team land --run <id>` brings into the user\'s branch (give that exact command');
    }
    const status = readFileSync(join(project.dir, '.claude/commands/team-status.md'), 'utf8');
    expect(status).toContain('(running, completed, failed, cancelled, stopped for a decision, or nothing drives it)');
    expect(status).toContain('`team land --run <id>`');
  });

  it('renders what init would write now, without writing, with the bin each CLI was set up with', async () => {
    const project = makeProject();
    const team = join(binFolder(['team']), 'team');
    await runInit(project.dir, ['--claude', '--codex', '--bin', team]);
    await runInit(project.dir, ['--opencode']);
    const expected = expectedInitFiles(project.dir, false);
    expect(expected.map((file) => file.path.slice(project.dir.length + 1))).toEqual([
      ...['team', 'ralph', 'cancel', 'team-status'].map((n) => `.claude/commands/${n}.md`),
      ...['team', 'ralph', 'cancel', 'team-status'].map((n) => `.opencode/commands/${n}.md`),
      '.agents/skills/team/SKILL.md',
      '.codex/rules/team.rules',
    ]);
    for (const file of expected) expect(readFileSync(file.path, 'utf8'), file.path).toBe(file.text);
    expect(expected[0]!.text).toContain(`allowed-tools: Bash(${team}:*)`);
    expect(expected[4]!.text).not.toContain(team);
    expect(expectedInitFiles(tempFolder('teamline-none-'), false)).toEqual([]);
  });
});
