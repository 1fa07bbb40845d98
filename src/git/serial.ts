// Git work on one repository, one step at a time: git's own lock files (config, refs, worktrees)
// make a second command that overlaps the first fail rather than wait.
export class Serial {
  private chain: Promise<unknown> = Promise.resolve();

  // Runs `work` once every earlier work has settled; its result or error is the caller's.
  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.chain.then(work, work);
    this.chain = next.catch(() => undefined);
    return next;
  }
}

// One Serial per repository (its top folder), for the process's lifetime.
const repos = new Map<string, Serial>();

export function serialFor(repo: string): Serial {
  let serial = repos.get(repo);
  if (!serial) repos.set(repo, (serial = new Serial()));
  return serial;
}
