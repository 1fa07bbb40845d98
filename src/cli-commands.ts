// What the `team` command runs, as one unit: the build bundles it (dist/cli/commands.cjs), and
// cli.ts takes it from there or, without a bundle, from these modules.
export { dispatch } from './commands/dispatch.js';
export { EXIT, TeamError } from './errors.js';
