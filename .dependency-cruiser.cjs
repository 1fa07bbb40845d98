// The floors of the house (docs/design.md): each imports only floors below it, and no cycles, so
// that a reader walks down the stack without turning back. The runtime's folders are floors of
// their own: a folder that imports one above it is a ring, even without a file-level cycle.
// `npm test` runs this check (npm run check:layers); a violation fails it.
//
//   src/cli.ts
//   src/commands/            one file per command
//   src/team-worker/         the `team worker` daemon
//   src/run/                 start, drive, take over, detach a run
//   src/cancel/, src/views/  a run's cancel; status, watch, report
//   src/remote/              an attempt's queued face: a team worker runs it through the store
//   src/attempt/             an attempt on this machine: prepare, launch, watch, judge
//   src/gates/               the verify stage's gates
//   src/isolation/, src/checkpoint/ worktrees and merges; the checkpoint file
//   src/team-tools/          the team tools' server, desk and inbox
//   src/session/             one orchestrator's hold on a run: the log, the fold, the registry
//   handoffs/
//   machines/, src/store/
//   config/, src/domain/     the config; the agent protocol's rules
//   src/log/
//   src/rules/               pure rules the machine and the fold share: rate limits, budgets
//   src/git/, workers/
//   src/sys/                 general utilities
const FLOORS = [
  ['cli', '^src/cli[.]ts$'],
  ['commands', '^src/commands/'],
  ['team-worker', '^src/team-worker/'],
  ['run', '^src/run/'],
  ['cancel and views', '^src/(cancel|views)/'],
  ['remote', '^src/remote/'],
  ['attempt', '^src/attempt/'],
  ['gates', '^src/gates/'],
  ['isolation and checkpoint', '^src/(isolation|checkpoint)/'],
  ['team-tools', '^src/team-tools/'],
  ['session', '^src/session/'],
  ['handoffs', '^handoffs/'],
  ['machines and store', '^(machines|src/store)/'],
  ['config and domain', '^(config|src/domain)/'],
  ['log', '^src/log/'],
  ['rules', '^src/rules/'],
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
