// Installs the real agent CLIs pinned in test/real-cli/package-lock.json into
// test/real-cli/node_modules when they are missing or the lock file changed; a no-op otherwise.
// Run by `npm test` before vitest, and by the real-CLI tests themselves (for a lone vitest run).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
// The folder of the installed CLIs' executables.
export const REAL_CLI_BIN = join(HERE, 'node_modules', '.bin');
// The CLIs the tests drive.
export const REAL_CLIS = ['claude', 'codex', 'gemini', 'opencode'];
// The ACP adapters of CLIs that have no ACP mode of their own (Zed's, for codex).
const ACP_ADAPTERS = ['codex-acp'];

const MARKER = join(HERE, 'node_modules', '.teamline-lock-sha256');
const LOCK_DIR = join(HERE, '.installing');
const STALE_LOCK_MS = 15 * 60_000;

function lockHash() {
  return createHash('sha256').update(readFileSync(join(HERE, 'package-lock.json'))).digest('hex');
}

// True when every CLI is there and was installed from the current lock file.
export function realClisInstalled() {
  if (![...REAL_CLIS, ...ACP_ADAPTERS].every((cli) => existsSync(join(REAL_CLI_BIN, cli)))) return false;
  return existsSync(MARKER) && readFileSync(MARKER, 'utf8').trim() === lockHash();
}

// Installs when needed; one installer at a time (a lock folder), the others wait for it.
export function ensureRealClis() {
  while (!realClisInstalled()) {
    try {
      mkdirSync(LOCK_DIR);
    } catch {
      if (Date.now() - statSync(LOCK_DIR, { throwIfNoEntry: false })?.mtimeMs > STALE_LOCK_MS) rmSync(LOCK_DIR, { recursive: true, force: true });
      execFileSync('sleep', ['2']);
      continue;
    }
    try {
      if (realClisInstalled()) break;
      process.stderr.write('teamline tests: installing the real agent CLIs (test/real-cli, ~1 GB, once)\n');
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', HERE], { stdio: ['ignore', 'inherit', 'inherit'] });
      checkVersions();
      writeFileSync(MARKER, `${lockHash()}\n`);
    } finally {
      rmSync(LOCK_DIR, { recursive: true, force: true });
    }
  }
}

// The package of each CLI, whose pinned version its `--version` must print.
const PACKAGES = { claude: '@anthropic-ai/claude-code', codex: '@openai/codex', gemini: '@google/gemini-cli', opencode: 'opencode-ai' };

// Runs `<cli> --version` for each CLI: a platform binary missing from the registry shows here,
// at install, rather than as a failing run.
function checkVersions() {
  const pinned = JSON.parse(readFileSync(join(HERE, 'package.json'), 'utf8')).dependencies;
  for (const cli of REAL_CLIS) {
    const printed = execFileSync(join(REAL_CLI_BIN, cli), ['--version'], { encoding: 'utf8', timeout: 120_000 });
    const version = pinned[PACKAGES[cli]];
    if (!printed.includes(version)) throw new Error(`test/real-cli: \`${cli} --version\` printed ${printed.trim()}, not the pinned ${PACKAGES[cli]}@${version}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) ensureRealClis();
