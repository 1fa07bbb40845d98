// The absolute path of an executable `name` in the folders of `path` (PATH by default), or undefined.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export function findOnPath(name: string, path: string = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // Not here.
    }
  }
  return undefined;
}
