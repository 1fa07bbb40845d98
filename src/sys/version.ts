// The version of the installed package (`team --version`, the telemetry's service.version).
import { readFileSync } from 'node:fs';

// The `version` field of teamline's package.json (dist/src/sys → the package root).
export function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
