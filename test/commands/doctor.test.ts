// `team doctor` through the built CLI in a real git repository: the passing case, and each check's
// failing one. PATH is built per case from a folder of links (git, tmux, bash of the system, the
// built `team`); the only fake is a strict `claude` that answers `--version` alone (the real CLI is
// not installed for this suite), put on PATH for the agent version check.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { checkNode } from '../../src/commands/doctor/checks.js';
import { startCluster } from '../helpers/postgres.js';
import { CLI } from '../helpers/team.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const FAKE_CLAUDE = `#!/bin/sh\nif [ "$*" = "--version" ]; then echo "2.1.197 (Claude Code)"; exit 0; fi\necho "error: unknown option '$1'" >&2\nexit 1\n`;

interface Setup {
  dir: string;
  home: string;
  bin: string;
}

// A git repository with .team/ excluded and `team init --claude` done, a HOME, and a bin folder.
function makeSetup(tools: string[] = ['git', 'tmux', 'bash', 'sh', 'env']): Setup {
  const root = mkdtempSync(join(tmpdir(), 'teamline-doctor-'));
  dirs.push(root);
  const [dir, home, bin] = ['project', 'home', 'bin'].map((name) => join(root, name)) as [string, string, string];
  for (const folder of [dir, home, bin]) mkdirSync(folder);
  for (const tool of tools) symlinkSync(execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), join(bin, tool));
  symlinkSync(CLI, join(bin, 'team'));
  writeFileSync(join(dir, 'README.md'), '# a project\n');
  execFileSync('git', ['init', '--quiet', '--initial-branch', 'main'], { cwd: dir });
  execFileSync('git', ['add', 'README.md'], { cwd: dir });
  execFileSync('git', ['-c', 'user.name=A', '-c', 'user.email=a@example.com', 'commit', '--quiet', '-m', 'base'], { cwd: dir });
  execFileSync(process.execPath, [CLI, 'init', '--claude'], { cwd: dir, env: { PATH: bin, HOME: home }, stdio: 'ignore' });
  return { dir, home, bin };
}

function addFakeClaude(setup: Setup, loggedIn: boolean): void {
  writeFileSync(join(setup.bin, 'claude'), FAKE_CLAUDE);
  chmodSync(join(setup.bin, 'claude'), 0o755);
  if (loggedIn) {
    mkdirSync(join(setup.home, '.claude'), { recursive: true });
    writeFileSync(join(setup.home, '.claude', '.credentials.json'), '{"claudeAiOauth":{}}\n');
  }
}

async function doctor(setup: Setup, args: string[] = [], env: Record<string, string> = {}) {
  const result = await execa(process.execPath, [CLI, 'doctor', ...args], { cwd: setup.dir, env: { PATH: setup.bin, HOME: setup.home, ...env }, extendEnv: false, reject: false, stdin: 'ignore' });
  return { exitCode: result.exitCode, stdout: String(result.stdout), lines: String(result.stdout).split('\n'), stderr: String(result.stderr) };
}

describe('team doctor', () => {
  it('passes in a set-up project: each check a line, the agent CLI with its version and login', async () => {
    const setup = makeSetup();
    addFakeClaude(setup, true);
    const result = await doctor(setup);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.lines).toContain(`ok    node: ${process.version}`);
    expect(result.lines.find((line) => line.startsWith('ok    git: git version '))).toBeDefined();
    expect(result.lines).toContain(`ok    agent claude: 2.1.197 (Claude Code); logged in (${join(setup.home, '.claude', '.credentials.json')})`);
    expect(result.lines).toContain('--    agent codex: not found on PATH (optional)');
    expect(result.lines).toContain(`ok    team on PATH: ${join(setup.bin, 'team')}`);
    expect(result.lines).toContain('ok    command files claude: 4 current');
    expect(result.lines).toContain('ok    .team/ ignored: git ignores .team/');
    expect(result.lines).toContain('ok    config: defaults (no .team/config.json)');
    expect(result.lines).toContain('ok    an agent to run: claude');
    expect(result.lines.at(-1)).toBe('team doctor: every required check passes');
  });

  it('fails when no agent CLI is on the PATH and the config names none, and passes with one in the config', async () => {
    const setup = makeSetup();
    const bare = await doctor(setup);
    expect(bare.exitCode).toBe(1);
    expect(bare.lines).toContain(
      'FAIL  an agent to run: no agent CLI on PATH and none in the config, so `team "task"` has no agent to start (only the demo runs: --agent sim) — fix: install one of claude, codex, gemini, opencode, aider and log in, or name an agent in .team/config.json (docs/formats.md)',
    );
    writeFileSync(join(setup.dir, '.team', 'config.json'), JSON.stringify({ agents: { mine: { adapter: 'command', command: 'true' } } }));
    const configured = await doctor(setup);
    expect(configured.exitCode, configured.stdout).toBe(0);
    expect(configured.lines).toContain('ok    an agent to run: mine (config)');
  });

  it('gives the checks as data with --json', async () => {
    const setup = makeSetup();
    addFakeClaude(setup, true);
    const result = await doctor(setup, ['--json']);
    const data = JSON.parse(result.stdout) as { ok: boolean; checks: { name: string; status: string; detail: string; fix?: string }[] };
    expect(data.ok).toBe(true);
    expect(data.checks.find((check) => check.name === 'agent gemini')).toEqual({ name: 'agent gemini', status: 'info', detail: 'not found on PATH (optional)' });
  });

  it('fails when the agent CLIs on PATH show no sign of a login: their first attempt would fail', async () => {
    const setup = makeSetup();
    addFakeClaude(setup, false);
    writeFileSync(join(setup.bin, 'codex'), `#!/bin/sh\nif [ "$*" = "--version" ]; then echo "codex-cli 0.171.0"; exit 0; fi\nexit 2\n`);
    chmodSync(join(setup.bin, 'codex'), 0o755);
    const result = await doctor(setup);
    expect(result.exitCode).toBe(1);
    expect(result.lines).toContain('warn  agent claude: 2.1.197 (Claude Code); no sign of a login — fix: run `claude` and /login, or set ANTHROPIC_API_KEY');
    expect(result.lines).toContain(
      'FAIL  an agent to run: claude, codex are on PATH, but none shows a login, so its first attempt would fail (only the demo runs: --agent sim) — fix: log in to one: run `claude` and /login, or set ANTHROPIC_API_KEY; run `codex login`, or set OPENAI_API_KEY',
    );
    expect(result.lines.at(-1)).toBe('team doctor: 1 required check(s) fail');
    // One logged in is enough: a run has an agent that can start.
    const keyed = await doctor(setup, [], { ANTHROPIC_API_KEY: 'k' });
    expect(keyed.exitCode).toBe(0);
    expect(keyed.lines).toContain('ok    agent claude: 2.1.197 (Claude Code); ANTHROPIC_API_KEY is set');
    expect(keyed.lines).toContain('ok    an agent to run: claude');
  });

  it('prints what an agent CLI says of its version without its escape sequences', async () => {
    const setup = makeSetup();
    addFakeClaude(setup, true);
    writeFileSync(join(setup.bin, 'claude'), `#!/bin/sh\nprintf '2.1.197\\033]2;pwned\\007\\033[2J (Claude Code)\\n'\n`);
    const result = await doctor(setup);
    expect(result.lines).toContain(`ok    agent claude: 2.1.197 (Claude Code); logged in (${join(setup.home, '.claude', '.credentials.json')})`);
    expect(result.stdout).not.toContain('\u001b');
  });

  it('fails when team is not on the PATH, or git is not', async () => {
    const setup = makeSetup(['tmux', 'bash', 'sh', 'env']);
    rmSync(join(setup.bin, 'team'));
    const result = await doctor(setup);
    expect(result.exitCode).toBe(1);
    expect(result.lines).toContain('FAIL  team on PATH: not found, so /team in an agent cannot run it — fix: npm install -g . in the teamline clone (docs/install.md)');
    expect(result.lines).toContain('FAIL  git: git was not found — fix: install git');
    // No agent CLI either (the fake claude is not there): a third.
    expect(result.lines.at(-1)).toBe('team doctor: 3 required check(s) fail');
  });

  it('does not fail a fresh repository with no .team/ yet: the first run excludes it before writing', async () => {
    const setup = makeSetup();
    addFakeClaude(setup, true);
    rmSync(join(setup.dir, '.team'), { recursive: true, force: true });
    writeFileSync(join(setup.dir, '.git', 'info', 'exclude'), '');
    const result = await doctor(setup);
    expect(result.lines).toContain('--    .team/ ignored: no .team/ yet: the first run (or team init) adds it to .git/info/exclude before writing there');
    expect(result.lines.some((line) => line.startsWith('FAIL  .team/'))).toBe(false);
  });

  it('fails when git would commit .team/', async () => {
    const setup = makeSetup();
    writeFileSync(join(setup.dir, '.git', 'info', 'exclude'), '');
    const result = await doctor(setup);
    expect(result.exitCode).toBe(1);
    expect(result.lines).toContain("FAIL  .team/ ignored: git would commit teamline's run files — fix: team init adds .team/ to .git/info/exclude; or add a line .team/ to .gitignore");
  });

  it('fails on a config that does not validate, naming the field', async () => {
    const setup = makeSetup();
    writeFileSync(join(setup.dir, '.team', 'config.json'), JSON.stringify({ team: { maxFixLoops: -1 } }));
    const result = await doctor(setup);
    expect(result.exitCode).toBe(1);
    expect(result.lines).toContain(`FAIL  config: config ${join(setup.dir, '.team', 'config.json')} is invalid: ✖ Too small: expected number to be >=0 → at team.maxFixLoops — fix: correct the field named`);
  });

  it('fails on command files older than team init writes now, and warns of ones changed by hand', async () => {
    const setup = makeSetup();
    const file = join(setup.dir, '.claude', 'commands', 'team.md');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\nYou may also say hello.\n`);
    expect((await doctor(setup)).lines).toContain('warn  command files claude: 1 changed since team init wrote them — fix: team init --claude --force writes teamline\'s text again');
    // An older text of init's own: its hash is in the manifest.
    const manifestFile = join(setup.dir, '.team', 'init-manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as { files: Record<string, string> };
    const old = 'an older /team text\n';
    manifest.files['.claude/commands/team.md'] = execFileSync('sha256sum', { input: old, encoding: 'utf8' }).split(' ')[0]!;
    writeFileSync(manifestFile, JSON.stringify(manifest));
    writeFileSync(file, old);
    const result = await doctor(setup);
    expect(result.exitCode).toBe(1);
    expect(result.lines).toContain('FAIL  command files claude: out of date: .claude/commands/team.md — fix: team init --claude brings them up to date');
  });

  it('fails when the store named by --store cannot be reached', async () => {
    const setup = makeSetup();
    const port = await closedPort();
    const result = await doctor(setup, ['--store', `postgres://teamline@127.0.0.1:${port}/teamline`]);
    expect(result.exitCode).toBe(1);
    expect(result.lines.find((line) => line.startsWith('FAIL  store: '))).toBe(
      `FAIL  store: the store postgres://teamline@127.0.0.1:${port}/teamline cannot be reached (connect ECONNREFUSED 127.0.0.1:${port}) — fix: start the database, or correct --store / team.store`,
    );
  });

  it('passes the store check when the database named by --store answers', async () => {
    const setup = makeSetup();
    addFakeClaude(setup, true);
    const cluster = await startCluster();
    try {
      const result = await doctor(setup, ['--store', cluster.url]);
      expect(result.exitCode, result.stdout).toBe(0);
      expect(result.lines).toContain(`ok    store: ${cluster.url.replace(/:[0-9a-f]+@/, ':***@')} answers`);
    } finally {
      await cluster.stop();
    }
  }, 60_000);

  it('fails on a Node older than 20.5', () => {
    expect(checkNode('v20.4.0')).toEqual({ name: 'node', status: 'fail', detail: 'v20.4.0 is older than 20.5', fix: 'install Node 20.5 or later' });
    expect(checkNode('v20.5.0').status).toBe('ok');
    expect(checkNode('v22.1.0').status).toBe('ok');
  });
});

// A port on 127.0.0.1 that nothing listens on (bound, read, closed).
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
