// How each real CLI is pointed at the scripted model server: a scratch HOME (and XDG / CODEX_HOME)
// under a temp folder, its config files there, and env that allows no other network call.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REAL_CLI_BIN } from './install.mjs';

export type RealCli = 'claude' | 'codex' | 'gemini' | 'opencode';

// A proxy nothing listens on, so that a call to anywhere but 127.0.0.1 fails at once.
const DEAD_PROXY = 'http://127.0.0.1:9';

// The env var that carries the model key for codex and opencode (their configs name it).
const KEY_VAR = 'TEAMLINE_MODEL_KEY';

export interface CliHome {
  /** The env of `team` (inherited by its workers) for the CLI and this key. */
  env(key: string): Record<string, string>;
  remove(): void;
}

// Makes a scratch home for `cli` pointed at `serverUrl`, or sets up `shared` (a home the caller
// made and removes, which several CLIs may share as one user's).
export function makeCliHome(cli: RealCli, serverUrl: string, shared?: string): CliHome {
  const home = shared ?? mkdtempSync(join(tmpdir(), `teamline-${cli}-home-`));
  const put = (relative: string, text: string) => {
    mkdirSync(join(home, relative, '..'), { recursive: true });
    writeFileSync(join(home, relative), text);
    return join(home, relative);
  };
  const common: Record<string, string> = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local/state'),
    // Temp files (gemini's error reports, codex's helpers) stay in the scratch home too.
    TMPDIR: join(home, 'tmp'),
    PATH: `${REAL_CLI_BIN}:${process.env.PATH ?? ''}`,
    // Any call that is not to 127.0.0.1 goes to a proxy that refuses it (port 9: discard).
    HTTP_PROXY: DEAD_PROXY,
    HTTPS_PROXY: DEAD_PROXY,
    ALL_PROXY: DEAD_PROXY,
    NO_PROXY: '127.0.0.1,localhost',
  };
  mkdirSync(common.TMPDIR!, { recursive: true });
  const perCli: Record<RealCli, (key: string) => Record<string, string>> = {
    claude: (key) => ({
      ANTHROPIC_BASE_URL: serverUrl,
      ANTHROPIC_API_KEY: key,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
    }),
    codex: (key) => ({ CODEX_HOME: join(home, '.codex'), [KEY_VAR]: key }),
    gemini: (key) => ({ GOOGLE_GEMINI_BASE_URL: serverUrl, GEMINI_API_KEY: key }),
    opencode: (key) => ({
      OPENCODE_CONFIG: join(home, 'opencode.json'),
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_SHARE: '1',
      OPENCODE_DISABLE_CLAUDE_CODE: '1',
      [KEY_VAR]: key,
    }),
  };
  if (cli === 'codex') {
    put('.codex/config.toml', [
      'model = "scripted"',
      'model_provider = "scripted"',
      'check_for_update_on_startup = false',
      '[model_providers.scripted]',
      'name = "scripted"',
      `base_url = "${serverUrl}/v1"`,
      `env_key = "${KEY_VAR}"`,
      'wire_api = "responses"',
      // Its workspace-write sandbox makes .git, .codex, .agents and .aws in every writable root, /tmp
      // among them: a .git left in /tmp would make every project under /tmp look like a repository
      // (a git probe per run). The scratch TMPDIR stays writable.
      '[sandbox_workspace_write]',
      'exclude_slash_tmp = true',
      '',
    ].join('\n'));
  }
  if (cli === 'gemini') {
    put('.gemini/settings.json', JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } }));
  }
  if (cli === 'opencode') {
    const provider = { npm: '@ai-sdk/openai-compatible', name: 'scripted', options: { baseURL: `${serverUrl}/v1`, apiKey: `{env:${KEY_VAR}}` }, models: { scripted: { name: 'scripted' } } };
    put('opencode.json', JSON.stringify({ $schema: 'https://opencode.ai/config.json', model: 'scripted/scripted', small_model: 'scripted/scripted', autoupdate: false, share: 'disabled', provider: { scripted: provider } }));
  }
  return {
    env: (key) => ({ ...common, ...perCli[cli](key) }),
    remove: () => (shared ? undefined : rmSync(home, { recursive: true, force: true })),
  };
}
