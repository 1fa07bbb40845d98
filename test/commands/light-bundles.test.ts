// The light start of `team cancel` (src/commands/light/cancel.ts, bundled apart by
// scripts/bundle-cli.ts) stays light: it reads the run's lock and writes a request, so its bundle holds
// neither the CLI catalogue (workers/adapters) nor zod. Once `team init`'s flags in the shared flag
// table pulled the catalogue in: the bundle grew from 37 KB to 486 KB, and `team cancel` started
// 20 ms slower (crypto, zod and every adapter run at each start).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/team.js';

// The modules a bundle holds, as esbuild marks each one (`// dist/src/…`, `// node_modules/…`).
function bundledModules(name: string): string[] {
  const text = readFileSync(join(ROOT, 'dist', 'cli', name), 'utf8');
  return [...new Set(text.split('\n').filter((line) => /^\/\/ (dist|node_modules)\//.test(line)).map((line) => line.slice(3)))];
}

describe('the light bundles', () => {
  it("team cancel's holds no adapter of the CLI catalogue and no zod", () => {
    const modules = bundledModules('cancel.cjs');
    expect(modules).toContain('dist/src/commands/light/cancel-ask.js');
    expect(modules.filter((m) => m.startsWith('dist/workers/') || m.startsWith('node_modules/zod/'))).toEqual([]);
  });
});
