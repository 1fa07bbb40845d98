// Reads `team <command> --help` as a person does: its sections, and the flags its options list.

// The sections of a help page, by their heading (`usage`, `options`, `examples`, `exit codes`).
export function helpSections(text: string): Record<string, string[]> {
  const sections: Record<string, string[]> = {};
  let current = 'top';
  for (const line of text.split('\n')) {
    const heading = /^([a-z][a-z ]*)(?: \(.*\))?:$/.exec(line);
    if (heading) current = heading[1]!;
    else if (line !== '') (sections[current] ??= []).push(line);
  }
  return sections;
}

// The flags the options section lists, by name, each with its line(s) of description.
export function listedFlags(text: string): Map<string, string> {
  const flags = new Map<string, string>();
  let last: string | undefined;
  for (const line of helpSections(text).options ?? []) {
    const flag = /^ {2}--([a-z][a-z-]*)/.exec(line);
    if (flag) flags.set((last = flag[1]!), line);
    else if (last) flags.set(last, `${flags.get(last)} ${line.trim()}`);
  }
  return flags;
}

// A command line split into words as a shell would for these examples: double quotes group words.
export function shellWords(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}
