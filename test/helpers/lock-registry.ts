// A package registry on 127.0.0.1 that knows only the packages of a package-lock.json: npm resolves
// each dependency of a packed teamline to the locked version and takes its tarball from npm's own
// cache by the locked integrity (filled by `npm ci`), so an install needs no other network. A
// tarball asked of this registry (one not in the cache) is answered 404 and listed in `missed`.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface LockEntry {
  name?: string;
  version?: string;
  integrity?: string;
  link?: boolean;
  [field: string]: unknown;
}

export interface LockRegistry {
  url: string;
  missed: string[];
  close(): Promise<void>;
}

// The manifest fields npm reads to resolve and place a version.
const MANIFEST_FIELDS = ['dependencies', 'optionalDependencies', 'peerDependencies', 'peerDependenciesMeta', 'os', 'cpu', 'libc', 'engines', 'bin'];

// Serves the packuments of `lockFile` until closed.
export async function startLockRegistry(lockFile: string): Promise<LockRegistry> {
  const packages = (JSON.parse(readFileSync(lockFile, 'utf8')) as { packages: Record<string, LockEntry> }).packages;
  const missed: string[] = [];
  let url = '';
  const server: Server = createServer((request, response) => {
    const name = decodeURIComponent((request.url ?? '/').slice(1).split('?')[0]!);
    const packument = name.includes('/-/') ? undefined : makePackument(packages, name, url);
    if (!packument) missed.push(name);
    response.writeHead(packument ? 200 : 404, { 'content-type': 'application/json' });
    response.end(JSON.stringify(packument ?? { error: 'not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, missed, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function makePackument(packages: Record<string, LockEntry>, name: string, url: string): object | undefined {
  const versions: Record<string, object> = {};
  let latest: string | undefined;
  for (const [path, entry] of Object.entries(packages)) {
    if (!path.includes('node_modules/') || entry.link || !entry.version || !entry.integrity) continue;
    if ((entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)) !== name) continue;
    const fields = Object.fromEntries(MANIFEST_FIELDS.filter((field) => entry[field] !== undefined).map((field) => [field, entry[field]]));
    const base = name.split('/').pop();
    versions[entry.version] = { name, version: entry.version, ...fields, dist: { integrity: entry.integrity, tarball: `${url}${name}/-/${base}-${entry.version}.tgz` } };
    if (path === `node_modules/${name}`) latest = entry.version;
  }
  if (Object.keys(versions).length === 0) return undefined;
  return { name, 'dist-tags': { latest: latest ?? Object.keys(versions)[0] }, versions };
}
