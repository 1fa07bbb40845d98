// The order the suite's files start in: the real CLIs' suites first, longest first, then vitest's own
// order (the durations it cached, else the largest file first). The real CLIs' files are small (they
// share test/real-cli/suite.ts) but the longest of all, mostly spent waiting for the CLIs: started
// last, as a fresh clone's size order had them, one of them ran alone for minutes at the end while
// the other fork had nothing left to do.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Each real CLI's suite, by how long it ran on a 2-core machine (opencode about 4.6 min, the slash
// commands 4.5, gemini 3.8, the three ACP agents 2.5, claude and codex 1.3).
const LONGEST = ['opencode', 'slash-commands', 'gemini', 'acp', 'claude', 'codex'].map((name) => `/test/real-cli/${name}.test.ts`);

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = LONGEST.findIndex((end) => file.moduleId.endsWith(end));
      return at === -1 ? LONGEST.length : at;
    };
    return sorted.map((file, i) => ({ file, i })).sort((a, b) => rank(a.file) - rank(b.file) || a.i - b.i).map(({ file }) => file);
  }
}
