#!/usr/bin/env node
// The sim agent's program (main.ts is the agent). It starts once per attempt, thousands of times in
// the tests and the bench: like the `team` command it runs from a bundle the build makes
// (scripts/bundle-cli.ts), compiled from V8's code cache of its last start, which halves its start-up
// (zod's modules alone cost as much as Node's own start); without bundles, from the modules tsc wrote.
import { loadBundle } from '../../src/sys/code-cache.js';

await loadBundle('sim', () => import('./main.js'));
