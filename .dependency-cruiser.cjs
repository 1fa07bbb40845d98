// The floors of the house (docs/design.md): each imports only floors below it, and no cycles.
// `npm test` runs this check (npm run check:layers); a violation fails it.
//
//   src/cli.ts
//   src/commands/            one file per command
//   src/team-worker/         the `team worker` daemon
//   src/run, cancel, attempt, remote, gates, isolation, opchain, views, inbox, mcp   the runtime and the views
//   handoffs/
//   machines/, src/store/
//   config/, src/log/
//   src/git/, workers/
//   src/sys/                 general utilities
const FLOORS = [
  ['cli', '^src/cli[.]ts$'],
  ['commands', '^src/commands/'],
  ['team-worker', '^src/team-worker/'],
  ['runtime', '^src/(run|cancel|attempt|remote|gates|isolation|opchain|views|inbox|mcp)/'],
  ['handoffs', '^handoffs/'],
  ['machines and store', '^(machines|src/store)/'],
  ['config and log', '^(config|src/log)/'],
  ['git and workers', '^(src/git|workers)/'],
  ['sys', '^src/sys/'],
];

// One rule per floor: nothing on it imports a floor above it.
const upward = FLOORS.slice(1).map(([name, path], i) => ({
  name: `no-upward-from-${name.replace(/ /g, '-')}`,
  comment: `${name} imports only floors below it (docs/design.md)`,
  severity: 'error',
  from: { path },
  to: { path: FLOORS.slice(0, i + 1).map(([, above]) => above) },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'no-circular',
      comment: 'a cycle of imports, type imports too: one of them belongs elsewhere',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unknown-folder',
      comment: 'every source file lives on a floor of the list above',
      severity: 'error',
      from: { path: '^(src|machines|workers|handoffs|config)/', pathNot: FLOORS.map(([, p]) => p) },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
