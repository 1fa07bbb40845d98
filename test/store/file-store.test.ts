// The file store (.team/runs) against the store conformance suite.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { runPaths } from '../../src/log/write.js';
import { FileStore } from '../../src/store/files/store.js';
import { storeConformance } from './conformance.js';
import { startWriter } from './writer-process.js';

describe('src/store/file-store', () => {
  storeConformance(async () => {
    const projectDir = mkdtempSync(join(tmpdir(), 'teamline-file-store-'));
    return {
      store: new FileStore(projectDir, { fsync: false }),
      secondTerminal: 'reported',
      writeRaw: async (runId, kind, name, body) => writeFileSync(join(kind === 'events' ? runPaths(projectDir, runId).eventsDir : runPaths(projectDir, runId).approvalsDir, name), body),
      startWriter: (runId) => startWriter('file-writer.mjs', [runPaths(projectDir, runId).runDir]),
      cleanup: async () => rmSync(projectDir, { recursive: true, force: true }),
    };
  });
});
