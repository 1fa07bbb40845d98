// File ownership: the files (paths or globs, relative to the project) a planned task says it will
// change. Two tasks whose claims overlap never run at once (schedule.ts): the later one waits, as
// if it were blocked by the earlier. A task that claims nothing is not held back.
//
// Overlap is decided without reading the disk, and errs towards overlap: a claim's fixed part is its
// path up to its first wildcard segment (`src/api/**` → `src/api`, `**/*.ts` → the whole project, a
// literal path → itself); two claims overlap when one's fixed part is the other's or lies under it
// (`src/api` and `src/api/users.ts` do; `src/a.ts` and `src/b.ts` do not; `src/*.ts` and `src/b.js`
// do, as the fixed parts cannot tell them apart).

const WILDCARD = /[*?[\]{}]/;

// The claim's fixed part: its segments before the first with a wildcard.
function fixedPart(claim: string): string {
  const parts = claim.split('/').filter((p) => p !== '' && p !== '.');
  const wild = parts.findIndex((p) => WILDCARD.test(p));
  return (wild === -1 ? parts : parts.slice(0, wild)).join('/');
}

function within(path: string, folder: string): boolean {
  return folder === '' || path === folder || path.startsWith(`${folder}/`);
}

// Whether two claims may name a file in common.
export function claimsOverlap(a: string, b: string): boolean {
  const x = fixedPart(a);
  const y = fixedPart(b);
  return within(x, y) || within(y, x);
}

// The first pair of overlapping claims of two tasks, or undefined when they are apart (or one claims nothing).
export function sharedClaim(a: readonly string[] | undefined, b: readonly string[] | undefined): [string, string] | undefined {
  if (!a?.length || !b?.length) return undefined;
  for (const x of a) for (const y of b) if (claimsOverlap(x, y)) return [x, y];
  return undefined;
}

// Past this many tasks the width is not looked for: every worker may take work.
const WIDTH_CHECK_TASKS = 300;

// How many of the plan's tasks can ever run at once, at most: the tasks are cut into groups in which
// no two can run together (one blockedBy the other, directly or not, or their files overlap), and
// each group runs one task at a time. The count of groups bounds the run's concurrency from above
// (a greedy cover may overcount, never undercount): the workers beyond it would only sit idle.
// `atMost` (the workers there are) ends the count once reached: the cover is quadratic in the tasks
// of a wide plan (200 independent tasks: 20,000 looks), and a width past the workers changes nothing.
export function planWidth(tasks: ReadonlyArray<{ id: string; blockedBy?: string[]; files?: string[]; candidateOf?: string }>, atMost = Infinity): number {
  if (tasks.length > WIDTH_CHECK_TASKS) return Math.min(tasks.length, atMost);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const ancestors = new Map<string, Set<string>>();
  const ancestorsOf = (id: string, seen: Set<string> = new Set()): Set<string> => {
    const known = ancestors.get(id);
    if (known) return known;
    const found = new Set<string>();
    seen.add(id);
    for (const dep of byId.get(id)?.blockedBy ?? []) {
      if (!byId.has(dep) || seen.has(dep)) continue;
      found.add(dep);
      for (const a of ancestorsOf(dep, seen)) found.add(a);
    }
    ancestors.set(id, found);
    return found;
  };
  // A task's candidates (the best of N) claim its files alike and run together: each has a worktree of its own.
  const siblings = (a: string, b: string) => byId.get(a)!.candidateOf !== undefined && byId.get(a)!.candidateOf === byId.get(b)!.candidateOf;
  const neverTogether = (a: string, b: string) => ancestorsOf(a).has(b) || ancestorsOf(b).has(a) || (!siblings(a, b) && sharedClaim(byId.get(a)!.files, byId.get(b)!.files) !== undefined);
  const groups: string[][] = [];
  for (const task of tasks) {
    const group = groups.find((members) => members.every((other) => neverTogether(task.id, other)));
    if (group) group.push(task.id);
    else if (groups.push([task.id]) >= atMost) return atMost;
  }
  return Math.max(1, groups.length);
}

// Why a planned file claim cannot be taken, in words; undefined when it is a path inside the project.
export function claimProblem(claim: string): string | undefined {
  if (claim.trim() === '') return 'an empty path';
  if (claim.length > 300) return 'a path over 300 characters';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(claim)) return 'a path with a control character';
  if (claim.startsWith('/') || /^[A-Za-z]:[\\/]/.test(claim)) return `"${claim}", an absolute path (name files relative to the project)`;
  if (claim.split(/[\\/]/).includes('..')) return `"${claim}", a path that leaves the project`;
  return undefined;
}
