// The suite's processes start without reading a CA file; the vitest configs import this module for
// its side effect, in vitest's own process, before any fork starts.
//
// Node reads the file NODE_EXTRA_CA_CERTS names at every start, whether the process speaks TLS or not:
// 75 ms of CPU a start on machines that set it for a proxy (these do). The suite starts thousands of
// node processes (its forks, `team`, the sim agent, `team mcp`) and none speaks TLS: the scripted
// model server, the OTLP receiver and the npm registry of the install tests are plain HTTP on
// 127.0.0.1, and the real CLIs are installed before the suite starts. Every process inherits the
// variable empty, which node skips (`npx vitest run test/commands`: 158 → 108 user-seconds, 102 → 78 s).
if (process.env.NODE_EXTRA_CA_CERTS) process.env.NODE_EXTRA_CA_CERTS = '';
