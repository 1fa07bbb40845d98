// What a command's light start (light/cancel.ts, light/status.ts) returns when the rest of its
// work needs the whole CLI: cli.ts then runs the command again from there. A string, so that it
// compares equal across the bundles.
export const WHOLE_CLI = 'whole-cli';

// `team <command> … --help` (or -h, before any `--`): help is the whole CLI's, whichever the command.
export function asksHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}
