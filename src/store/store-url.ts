// Which store a command reads: `--store URL`, else `team.store` of the config, else the files.
import { isPostgresUrl, type TeamConfig } from '../../config/schema.js';
import { UsageError } from '../sys/errors.js';
import { quoteShort } from '../sys/terminal-text.js';
import { maskUrl } from './mask-url.js';

// The PostgreSQL URL to read runs from, or undefined for the files under .team/runs.
export function storeUrlOf(flag: string | undefined, config: TeamConfig): string | undefined {
  if (flag === undefined) return config.team.store;
  if (!isPostgresUrl(flag)) {
    throw new UsageError(`--store: ${quoteShort(maskUrl(flag))} is not a PostgreSQL URL (postgres://user:password@host:port/database); without --store, runs are the files under .team/runs`);
  }
  return flag;
}
