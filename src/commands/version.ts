// `team --version`: the version of the installed package.
import { readFileSync } from 'node:fs';

// The `version` field of teamline's package.json (dist/src/commands → the package root).
export function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
