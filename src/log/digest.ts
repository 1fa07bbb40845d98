// A running digest of a run's event files, names and contents, in the order they sort (which is the
// order the one writer wrote them): a machine snapshot names the digest of the events it has seen,
// so that an event added, removed or changed among them shows.
import { createHash, type Hash } from 'node:crypto';

// Where a log stands: the last event file, how many there are up to it, and their digest.
export interface LogPosition {
  through: string;
  count: number;
  digest: string;
}

export class LogDigest {
  private readonly hash: Hash = createHash('sha256');
  private through = '';
  private count = 0;

  // Adds the next event file: its name and its text as read (undefined when it could not be read).
  add(name: string, text: string | undefined): void {
    this.hash.update(`${name}\n${text === undefined ? '\0unreadable' : text}\n`);
    this.through = name;
    this.count += 1;
  }

  /** Event files added so far. */
  get size(): number {
    return this.count;
  }

  // The position after every file added so far (the digest is taken from a copy: adding goes on).
  position(): LogPosition | undefined {
    if (this.count === 0) return undefined;
    return { through: this.through, count: this.count, digest: this.hash.copy().digest('hex') };
  }
}
