// `team --help` and each command's help through the built CLI: the same page for --help, -h and
// `team help <command>`, with what it does, its synopsis, every option with its default, examples
// and exit codes; the overview groups the commands; `team help nosuch` names the word.
import { readdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { commandOf, type CommandSpec } from '../../src/commands/specs/spec.js';
import { COMMANDS as PAGES } from '../../src/commands/specs/index.js';
import { helpSections, listedFlags } from '../helpers/help-text.js';
import { makeProject, removeProjects } from '../helpers/project.js';

afterAll(removeProjects);

// The three ways to ask for a page; the run command has no word of its own.
function helpForms(page: CommandSpec): string[][] {
  if (page.name === 'run') return [['"add input validation to the API"', '--help'], ['3:executor', '-h'], ['help', 'run']];
  const words = page.name.split(' ');
  return [[...words, '--help'], [...words, '-h'], ['help', ...words]];
}

describe('team help', () => {
  it.each(PAGES.map((page) => [commandOf(page), page] as const))('%s: --help, -h and `team help` print its page, exit 0 and write nothing', async (command, page) => {
    const project = makeProject();
    const results = await Promise.all(helpForms(page).map((form) => project.team(...form)));
    for (const result of results) expect(result).toMatchObject({ exitCode: 0, stderr: '', stdout: results[0]!.stdout });
    expect(readdirSync(project.dir)).toEqual([]);
    const text = results[0]!.stdout;
    const sections = helpSections(text);
    expect(sections.top![0]!.startsWith(`${command}: ${page.summary.slice(0, 20)}`)).toBe(true);
    const usage = sections.usage!.join(' ');
    expect(usage.startsWith(`  ${command} `)).toBe(true);
    const listed = listedFlags(text);
    for (const [name, spec] of Object.entries(page.flags)) {
      const line = listed.get(name);
      expect(line, `--${name} in the options of ${command}`).toBeDefined();
      expect(usage).toContain(`--${name}`);
      if (spec.type === 'string') {
        expect(line).toContain(`--${name} ${spec.value}`);
        expect(line).toContain(spec.default === 'required' ? '(required)' : `(default: ${spec.default})`);
      }
    }
    const examples = sections.examples!.filter((line) => /^ {2}team/.test(line));
    expect(examples.length).toBeGreaterThanOrEqual(1);
    expect(examples.length).toBeLessThanOrEqual(3);
    const codes = sections['exit codes']!.map((line) => /^ {2}(\d) {2}\S/.exec(line)?.[1]);
    expect(codes).not.toContain(undefined);
    expect(codes).toContain('0');
    expect(codes).toContain('2');
  });

  it('lists the options the usage used to leave out, each with what it does', async () => {
    const project = makeProject();
    const run = listedFlags((await project.team('help', 'run')).stdout);
    for (const flag of ['land', 'keep-panes', 'detach', 'task', 'agent', 'store']) expect(run.get(flag)).toMatch(new RegExp(`--${flag}\\b.* [a-z]`));
    expect(run.has('max-iterations')).toBe(false);
    expect(listedFlags((await project.team('ralph', '--help')).stdout).has('max-iterations')).toBe(true);
    expect(listedFlags((await project.team('attach', '--help')).stdout).get('print')).toContain('print the tmux command');
    expect([...listedFlags((await project.team('status', '--help')).stdout).keys()]).toEqual(['cwd', 'config', 'run', 'json', 'store', 'watch']);
  });

  it('team --help, -h and help begin with what teamline is and an example run, and group the commands', async () => {
    const project = makeProject();
    const results = await Promise.all([['--help'], ['-h'], ['help']].map((form) => project.team(...form)));
    for (const result of results) expect(result).toMatchObject({ exitCode: 0, stderr: '', stdout: results[0]!.stdout });
    const text = results[0]!.stdout;
    expect(text.split('\n')[0]).toMatch(/^teamline runs a team of AI coding agents on one task/);
    expect(text).toContain('  team 3:executor "add input validation to the API"\n');
    expect(text).toContain('  team 3:executor "add input validation to the API" --agent sim\n');
    expect(groupsOf(text)).toEqual({
      run: ['team', 'ralph', 'resume', 'scale', 'cancel'],
      follow: ['status', 'watch', 'wait', 'attach', 'say'],
      inspect: ['list', 'report', 'trace'],
      'take the work': ['land', 'restore', 'clean'],
      'set up': ['init', 'doctor'],
      'scale out': ['worker', '--store'],
      'low level': ['mcp', 'acp', 'approve', 'state', 'checkpoint', 'merge-driver'],
    });
    expect(Object.keys(groupsOf(text))).toEqual(['run', 'follow', 'inspect', 'take the work', 'set up', 'scale out', 'low level']);
  });

  it('bare team prints the same overview and exits 2', async () => {
    const project = makeProject();
    const [bare, help] = await Promise.all([project.team(), project.team('--help')]);
    expect(bare).toEqual({ exitCode: 2, stdout: help.stdout, stderr: '' });
  });

  it('team help with a word that is no command is a usage error naming it', async () => {
    const project = makeProject();
    expect(await project.team('help', 'nosuch')).toEqual({ exitCode: 2, stdout: '', stderr: 'team help: no command "nosuch"; `team --help` lists the commands\n' });
    expect(await project.team('help', 'stauts')).toEqual({ exitCode: 2, stdout: '', stderr: 'team help: no command "stauts"; did you mean `team help status`?\n' });
    expect((await project.team('help', 'state', 'nosuch')).stderr).toBe('team help: no command "state nosuch"; `team --help` lists the commands\n');
  });
});

// The overview's groups, each with the command words it lists (`team` for the run command).
function groupsOf(text: string): Record<string, string[]> {
  const groups: Record<string, string[]> = {};
  let group: string | undefined;
  for (const line of text.split('\n')) {
    const heading = /^([a-z][a-z ]*):$/.exec(line);
    if (heading) group = heading[1]!;
    else if (group && line.startsWith('  ')) groups[group]!.push(/^ {2}(?:team ([a-z][a-z-]*)|(team)|(--[a-z]+))/.exec(line)!.slice(1).find(Boolean)!);
    else group = undefined;
    if (heading) groups[group!] = [];
  }
  return groups;
}
