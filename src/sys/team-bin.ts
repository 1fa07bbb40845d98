// The file that runs `team`: dist/cli/team.cjs, the CommonJS script the build makes and the package's
// bin names (it starts without node's ES module loader), or, in a build without bundles, the module
// tsc wrote (dist/src/cli.js).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BUNDLED = fileURLToPath(new URL('../../cli/team.cjs', import.meta.url));
export const TEAM_BIN = existsSync(BUNDLED) ? BUNDLED : fileURLToPath(new URL('../cli.js', import.meta.url));
