// The command lines of a markdown file's shell code blocks, and the list kept beside the README
// (docs/readme-commands.json) that says how test/readme.test.ts runs each.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './team.js';

// Languages whose blocks hold commands to run; `text`, `json` and the rest are shown, not run.
const SHELL = new Set(['sh', 'bash', 'shell', 'console']);

export interface CodeBlock {
  lang: string;
  line: number;
  lines: string[];
}

// One entry of docs/readme-commands.json.
export interface CommandEntry {
  command: string;
  scene?: string;
  in?: 'clone';
  runs?: string;
  why?: string;
  exit?: number | number[];
  prints?: string;
  makes?: string;
  containing?: string;
  notRun?: string;
}

// Every fenced code block of `markdown`, with its language ('' when it names none) and first line.
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: CodeBlock | undefined;
  markdown.split('\n').forEach((text, index) => {
    const fence = /^\s*```(\S*)\s*$/.exec(text);
    if (open && fence && fence[1] === '') {
      blocks.push(open);
      open = undefined;
    } else if (!open && fence) open = { lang: fence[1]!, line: index + 1, lines: [] };
    else if (open) open.lines.push(text);
  });
  if (open) throw new Error(`the code block at line ${open.line} is never closed`);
  return blocks;
}

// The commands of the shell blocks, in order: comments and blanks skipped, `\` continuations
// joined, and in `console` blocks only the `$ ` lines (the rest is output).
export function shellCommands(markdown: string): string[] {
  const commands: string[] = [];
  for (const block of codeBlocks(markdown).filter((b) => SHELL.has(b.lang))) {
    let pending = '';
    for (const raw of block.lines) {
      let text = raw.trim();
      if (block.lang === 'console' && !pending) {
        if (!text.startsWith('$ ')) continue;
        text = text.slice(2).trim();
      }
      if (!pending && (text === '' || text.startsWith('#'))) continue;
      pending = pending ? `${pending} ${text}` : text;
      if (pending.endsWith('\\')) pending = pending.slice(0, -1).trimEnd();
      else {
        commands.push(pending);
        pending = '';
      }
    }
  }
  return commands;
}

// The README and its list, as the test reads them.
export function readmeAndList(): { readme: string; entries: CommandEntry[] } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const list = JSON.parse(readFileSync(join(ROOT, 'docs', 'readme-commands.json'), 'utf8')) as { commands: CommandEntry[] };
  return { readme, entries: list.commands };
}
