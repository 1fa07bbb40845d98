// Reading a task graph for its risks: dependency chains, missing criteria, tasks others wait on.
import { sharedClaim } from '../machines/ownership.js';
import type { TaskState } from '../machines/types.js';
import type { Detail, Section } from './layout.js';
import { countOf, listOf } from './text.js';

// Long dependency chains, tasks without acceptance criteria, tasks many others wait for, tasks
// (not ordered by blockedBy) that claim the same files.
export function describeGraphRisks(tasks: TaskState[]): Section {
  const chain = findLongestChain(tasks);
  const bare = tasks.filter((t) => !t.def.acceptance?.length).map((t) => t.id);
  const details: Detail[] = [];
  if (chain.length > 1) details.push({ text: `longest dependency chain, ${countOf(chain.length, 'task')} one after another: ${chain.join(' → ')}` });
  if (bare.length > 0) details.push({ text: `no acceptance criteria: ${listOf(bare)}` });
  for (const task of tasks) {
    const waiting = tasks.filter((t) => t.def.blockedBy?.includes(task.id)).length;
    if (waiting >= 2) details.push({ text: `${task.id} failing would block ${countOf(waiting, 'task')}`, key: task.id });
  }
  const shared = findSharedClaims(tasks);
  for (const { a, b, claim } of shared.slice(0, LISTED_SHARED)) details.push({ text: `${a} and ${b} both claim ${claim}: they run one after the other`, key: a });
  // Only what is a risk: a graph with none says so, never lists its good points as risks.
  const parts = [
    ...(chain.length > 1 ? [`a dependency chain of ${countOf(chain.length, 'task')}`] : []),
    ...(bare.length > 0 ? [`${countOf(bare.length, 'task')} without acceptance criteria`] : []),
    ...(shared.length > 0 ? [`${countOf(shared.length, 'pair')} of tasks claiming the same files`] : []),
  ];
  return { headline: parts.length > 0 ? parts.join('; ') : 'none in the task graph', details };
}

// Pairs of tasks whose file claims overlap (ownership.ts); past SHARED_CHECK_TASKS tasks the pairs
// are not looked for (the scheduler keeps such tasks apart all the same).
const SHARED_CHECK_TASKS = 300;
const LISTED_SHARED = 10;
function findSharedClaims(tasks: TaskState[]): Array<{ a: string; b: string; claim: string }> {
  const claiming = tasks.filter((t) => t.def.files?.length);
  if (claiming.length > SHARED_CHECK_TASKS) return [];
  const pairs: Array<{ a: string; b: string; claim: string }> = [];
  for (const [i, x] of claiming.entries()) {
    for (const y of claiming.slice(i + 1)) {
      // One after the other already.
      if (x.def.blockedBy?.includes(y.id) || y.def.blockedBy?.includes(x.id)) continue;
      const shared = sharedClaim(x.def.files, y.def.files);
      if (shared) pairs.push({ a: x.id, b: y.id, claim: shared[0] === shared[1] ? shared[0] : `${shared[0]} / ${shared[1]}` });
    }
  }
  return pairs;
}

// The longest blockedBy chain, first task first.
function findLongestChain(tasks: TaskState[]): string[] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const memo = new Map<string, string[]>();
  const chainTo = (id: string, seen: Set<string>): string[] => {
    const known = memo.get(id);
    if (known) return known;
    let best: string[] = [];
    for (const dep of byId.get(id)?.def.blockedBy ?? []) {
      if (!byId.has(dep) || seen.has(dep)) continue;
      const path = chainTo(dep, new Set([...seen, dep]));
      if (path.length > best.length) best = path;
    }
    memo.set(id, [...best, id]);
    return [...best, id];
  };
  return tasks.reduce<string[]>((best, t) => {
    const path = chainTo(t.id, new Set([t.id]));
    return path.length > best.length ? path : best;
  }, []);
}

// Tasks grouped in waves: a wave can start once every earlier wave is done.
export function listWaves(tasks: TaskState[]): string[][] {
  const level = new Map<string, number>();
  const ids = new Set(tasks.map((t) => t.id));
  for (let changed = true, rounds = 0; changed && rounds <= tasks.length; rounds += 1) {
    changed = false;
    for (const task of tasks) {
      const deps = (task.def.blockedBy ?? []).filter((d) => ids.has(d));
      const value = deps.length === 0 ? 0 : Math.max(...deps.map((d) => (level.get(d) ?? 0) + 1));
      if (level.get(task.id) !== value) {
        level.set(task.id, value);
        changed = true;
      }
    }
  }
  const waves: string[][] = [];
  for (const task of tasks) (waves[level.get(task.id) ?? 0] ??= []).push(task.id);
  return waves.filter((w) => w.length > 0);
}
