// `team --help`, `team help [command]` and `team <command> --help`: the commands by group, and each
// command's page (what it does, synopsis, options with defaults, examples, exit codes).
import { EXIT, UsageError } from '../sys/errors.js';
import type { FlagSpec } from './args/args.js';
import { commandOf, GROUPS, type CommandSpec } from './specs/spec.js';
import { COMMANDS } from './specs/index.js';
import { editDistance } from './args/one-word.js';

const WIDTH = 100;
// The width of the overview's first column: every group's commands line up.
const OVERVIEW_COLUMN = 26;

// Prints the help argv asks for; returns the exit code (2 for a bare `team`, which is no command).
export function helpCommand(argv: string[]): number {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || (first === 'help' && rest.every((arg) => arg === '--help' || arg === '-h' || arg === 'help'))) {
    process.stdout.write(renderOverview());
    return first === undefined ? EXIT.usage : EXIT.completed;
  }
  process.stdout.write(renderPage(first === 'help' ? namedPage(rest) : pageOf(argv)));
  return EXIT.completed;
}

// `team help <words>`: the page they name; any other words are a usage error naming them.
function namedPage(words: string[]): CommandSpec {
  const name = words.join(' ');
  const page = COMMANDS.find((p) => p.name === name || p.aliases?.includes(name));
  if (page) return page;
  const near = COMMANDS.map((p) => ({ name: p.name, distance: editDistance(name.toLowerCase(), p.name) })).sort((a, b) => a.distance - b.distance)[0]!;
  const hint = near.distance <= (name.length > 5 ? 2 : 1) ? `did you mean \`team help ${near.name}\`?` : `\`team --help\` lists the commands`;
  throw new UsageError(`team help: no command "${name}"; ${hint}`);
}

// The page of `team <command> … --help`: the command's, or the run command's (`team "task" --help`).
function pageOf(argv: string[]): CommandSpec {
  const two = `${argv[0]} ${argv[1]}`;
  return COMMANDS.find((p) => p.name === two || p.aliases?.includes(two)) ?? COMMANDS.find((p) => p.name === argv[0] && p.name !== 'run') ?? COMMANDS[0]!;
}

// What teamline is, an example run, and the commands by group.
function renderOverview(): string {
  const lines = [
    'teamline runs a team of AI coding agents on one task: plan, build in parallel, verify, fix.',
    '',
    'Try it with no key (a simulated agent), then with your agents:',
    '  team 3:executor "add input validation to the API" --agent sim',
    '  team 3:executor "add input validation to the API"',
  ];
  for (const group of GROUPS) {
    const entries = COMMANDS.filter((p) => p.group === group && !p.name.includes(' ')).map((p): [string, string] => [p.entry ?? commandOf(p), p.brief]);
    if (group === 'scale out') entries.push(['--store URL', 'keep runs in PostgreSQL: on team, ralph, resume, status, wait…']);
    lines.push('', `${group}:`, ...table(entries, 2, OVERVIEW_COLUMN));
  }
  lines.push('', '`team <command> --help` or `team help <command>`: its options, examples and exit codes.', '`team --version`: the version.');
  lines.push('', 'exit codes: 0 completed · 1 failed · 2 bad usage, config or input · 3 cancelled', '            4 stopped for a human decision · 5 `team wait` timed out · 6 nobody drives the run');
  return `${lines.join('\n')}\n`;
}

// One command's page.
function renderPage(page: CommandSpec): string {
  const lines = [...wrap(`${commandOf(page)}: ${page.summary}`, 2), '', 'usage:', ...wrap(synopsis(page), 4).map((l, i) => (i === 0 ? `  ${l}` : l))];
  if (page.about?.length) lines.push('', ...page.about.flatMap((line) => wrap(line, 0)));
  const subs = COMMANDS.filter((p) => p.name.startsWith(`${page.name} `));
  if (subs.length) lines.push('', 'commands:', ...table(subs.map((p) => [p.name.slice(page.name.length + 1), p.brief]), 2));
  const flags = Object.entries(page.flags);
  if (flags.length) lines.push('', 'options (a flag without a value is off unless given):', ...table(flags.map(([name, spec]) => [flagWords(name, spec), describe(spec)]), 2));
  lines.push('', 'examples:', ...page.examples.flatMap(([command, what]) => [`  ${command}`, ...wrap(`      ${what}`, 6)]));
  lines.push('', 'exit codes:', ...table(page.exits.map(([code, what]) => [String(code), what]), 2));
  return `${lines.join('\n')}\n`;
}

function synopsisHead(page: CommandSpec): string {
  return page.args ? `${commandOf(page)} ${page.args}` : commandOf(page);
}

// `team status [--run ID] [--json] …`: every flag, the required ones first and without brackets.
function synopsis(page: CommandSpec): string {
  const flags = Object.entries(page.flags);
  const required = flags.filter(([, spec]) => isRequired(spec)).map(([name, spec]) => flagWords(name, spec));
  const optional = flags.filter(([, spec]) => !isRequired(spec)).map(([name, spec]) => `[${flagWords(name, spec)}]`);
  return [synopsisHead(page), ...required, ...optional].join(' ');
}

function flagWords(name: string, spec: FlagSpec): string {
  return spec.type === 'string' ? `--${name} ${spec.value}` : `--${name}`;
}

function isRequired(spec: FlagSpec): boolean {
  return spec.type === 'string' && spec.default === 'required';
}

function describe(spec: FlagSpec): string {
  if (isRequired(spec)) return `${spec.help} (required)`;
  return spec.default === undefined ? spec.help : `${spec.help} (default: ${spec.default})`;
}

// Two columns, the second wrapped under itself.
function table(rows: Array<[string, string]>, indent: number, column?: number): string[] {
  const left = column ?? Math.min(Math.max(...rows.map(([l]) => l.length)), 28);
  return rows.flatMap(([l, r]) => {
    const head = `${' '.repeat(indent)}${l}`;
    const pad = indent + left + 2;
    if (l.length > left) return [head, ...wrap(`${' '.repeat(pad)}${r}`, pad)];
    return wrap(`${head.padEnd(pad)}${r}`, pad);
  });
}

// A line cut at spaces to WIDTH columns, the lines after the first indented.
function wrap(line: string, indent: number): string[] {
  const out: string[] = [];
  let rest = line;
  while (rest.length > WIDTH) {
    const cut = rest.lastIndexOf(' ', WIDTH);
    if (cut <= indent) break;
    out.push(rest.slice(0, cut));
    rest = `${' '.repeat(indent)}${rest.slice(cut + 1)}`;
  }
  return [...out, rest];
}
