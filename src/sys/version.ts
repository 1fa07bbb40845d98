// The version of the installed package (`team --version`, the telemetry's service.version).
import { readFileSync } from 'node:fs';

// The `version` field of teamline's package.json: the package root is three folders up from the
// built module (dist/src/sys), two from its source (src/sys, as the tests load it).
export function readVersion(): string {
  const built = new URL(import.meta.url).pathname.endsWith('/dist/src/sys/version.js');
  const pkg = JSON.parse(readFileSync(new URL(built ? '../../../package.json' : '../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
