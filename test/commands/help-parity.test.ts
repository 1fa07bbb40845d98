// Help and parser cannot drift: every flag a command's parser accepts is in its help and every flag
// its help lists is accepted, and each example parses. The parser's table is read off the real
// parser as the command calls it (a spy that passes every call on, not a stub); the help is the
// built CLI's output.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { FlagSpec } from '../../src/commands/args/args.js';
import { commandOf, type CommandSpec } from '../../src/commands/specs/spec.js';
import { COMMANDS as PAGES } from '../../src/commands/specs/index.js';
import { listedFlags, shellWords } from '../helpers/help-text.js';
import { makeProject, removeProjects } from '../helpers/project.js';

const calls = vi.hoisted(() => [] as Array<{ command: string; flags: Record<string, FlagSpec> }>);
vi.mock(import('../../src/commands/args/args.js'), async (importOriginal) => {
  const real = await importOriginal();
  return {
    ...real,
    parseFlags: (argv: string[], flags: Record<string, FlagSpec>, command: string) => {
      calls.push({ command, flags });
      return real.parseFlags(argv, flags, command);
    },
  };
});
const { dispatch } = await import('../../src/commands/index.js');
const { parseFlags } = await import('../../src/commands/args/args.js');

const UNKNOWN = '--no-such-flag';
const EACH = PAGES.map((page) => [commandOf(page), page] as const);

// The words that run a page's command: none for `team "task"`, `checkpoint validate` for checkpoint.
function wordsOf(page: CommandSpec): string[] {
  return page.name === 'run' ? [] : (page.aliases?.[0] ?? page.name).split(' ');
}

// The table the command's parser reads, and what it says of a flag it does not know.
async function parserOf(page: CommandSpec): Promise<{ command?: string; flags: Record<string, FlagSpec>; refusal: string }> {
  calls.length = 0;
  const refusal = await dispatch([...wordsOf(page), UNKNOWN]).then(
    (code) => `exit ${code}`,
    (error: Error) => error.message,
  );
  return { command: calls[0]?.command, flags: calls[0]?.flags ?? {}, refusal };
}

describe('help and parser', () => {
  const project = makeProject();
  const helpText = new Map<string, string>();
  beforeAll(async () => {
    for (const page of PAGES) helpText.set(page.name, (await project.team(...(page.name === 'run' ? ['help', 'run'] : [...page.name.split(' '), '--help']))).stdout);
    return removeProjects;
  });

  it('has a handler in each command\'s spec; a sub-command is routed by its command\'s (state start-task by state)', () => {
    for (const page of PAGES) expect(page.run !== undefined, page.name).toBe(!page.name.includes(' '));
  });

  it.each(EACH)('%s: the help lists exactly the flags the parser accepts', async (command, page) => {
    const parser = await parserOf(page);
    const listed = [...listedFlags(helpText.get(page.name)!).keys()];
    expect(listed.sort()).toEqual(Object.keys(parser.flags).sort());
    if (parser.command === undefined) {
      // No flag table: the command takes positionals (merge-driver) or a subcommand word (state).
      expect(parser.refusal).toMatch(/^team (merge-driver|state): /);
    } else {
      expect(parser.command).toBe(page.name === 'checkpoint' ? 'team checkpoint validate' : command);
      expect(parser.refusal).toBe(`${parser.command}: unknown option ${UNKNOWN} (\`${parser.command} --help\` lists the options)`);
    }
  });

  it.each(EACH)('%s: each example is a command line its parser accepts', async (_, page) => {
    for (const [line] of page.examples) {
      const words = shellWords(line).slice(1);
      // The page an example is of: the longest command name it starts with (`team state start-run`).
      const of = PAGES.filter((p) => p.name !== 'run' && wordsOf(p).every((word, i) => words[i] === word)).sort((a, b) => b.name.length - a.name.length)[0] ?? PAGES[0]!;
      expect(of === page || of.name.startsWith(`${page.name} `), `${line} is an example of ${commandOf(page)}`).toBe(true);
      const rest = words.slice(wordsOf(of).length);
      const { flags } = await parserOf(of);
      expect(() => parseFlags(rest, flags, commandOf(of)), line).not.toThrow();
    }
  });
});
