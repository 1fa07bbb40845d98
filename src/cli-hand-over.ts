// What a command's light start (src/cli-cancel.ts) returns when the rest of its work needs the whole
// CLI: cli.ts then runs the command again from there. A string, so that it compares equal across
// the two bundles.
export const WHOLE_CLI = 'whole-cli';
