// The tmux backend's public face for the runtime and `team attach`.
export { createTmuxBackend, type TmuxBackendOptions } from './backend.js';
export type { TmuxHandle } from './launch.js';
export { listPanes, type PaneInfo } from './panes.js';
export { attachCommand, ensureServer, killServer, makeTmuxConfig } from './server.js';
export { buildOverview, OVERVIEW_WINDOW } from './overview.js';
export { resolveTarget, toServerName, type TmuxOptions, type TmuxTarget } from './tmux-run.js';
