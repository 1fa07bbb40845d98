// The machine snapshot a resume starts from is trusted only while the event files it saw are exactly
// those on disk now (names and contents) and its machine code is this one; otherwise the whole log replays.
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { writeRun } from '../../bench/parts/resume-log.js';
import type { RunPaths } from '../../src/log/write.js';
import { MACHINE_SNAPSHOT_FILE, peekMachineSnapshot, readForReplay } from '../../src/session/machine-snapshot.js';
import { replayRun } from '../../src/session/replay.js';

const root = mkdtempSync(join(tmpdir(), 'teamline-machine-snapshot-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let paths: RunPaths;
let round = 0;

// What a takeover reads: every event file with their digest, and the snapshot when it is trusted.
function prepare() {
  const { files, snapshot } = readForReplay(paths);
  return { peeked: peekMachineSnapshot(paths), files, trusted: snapshot };
}

const snapshotFile = () => join(paths.runDir, MACHINE_SNAPSHOT_FILE);
const body = () => JSON.parse(readFileSync(snapshotFile(), 'utf8').split('\n')[1]!) as { through: string; machine: string };
// The event files the snapshot saw, and those after it.
const seenNames = () => readdirSync(paths.eventsDir).sort().filter((n) => n <= body().through);
const laterNames = () => readdirSync(paths.eventsDir).sort().filter((n) => n > body().through);

describe('machine snapshot', () => {
  beforeEach(() => {
    // A log of ~800 events as a live run writes it, stopped mid-exec: snapshots were saved on the way.
    paths = writeRun(join(root, `run-${++round}`), 800, 3).paths;
  });

  it('is trusted when its events are unchanged, and the replay from it ends where the whole replay ends', () => {
    const { files, trusted } = prepare();
    expect(trusted).toBeDefined();
    expect(trusted!.seen).toBeGreaterThanOrEqual(500);
    expect(trusted!.seen).toBeLessThan(files.events.length);
    const fromSnapshot = replayRun(files.events, trusted);
    const whole = replayRun(files.events);
    expect(fromSnapshot.snapshot.value).toEqual(whole.snapshot.value);
    expect(fromSnapshot.snapshot.context).toEqual(whole.snapshot.context);
    expect(fromSnapshot.pending).toEqual(whole.pending);
  });

  it('is ignored when torn', () => {
    truncateSync(snapshotFile(), 200);
    expect(prepare().peeked).toBeUndefined();
  });

  it('is ignored when made by other machine code, even when signed again', () => {
    const changed = { ...body(), machine: 'f'.repeat(64) };
    const text = JSON.stringify(changed);
    writeFileSync(snapshotFile(), `${createHash('sha256').update(text).digest('hex')}\n${text}`);
    expect(prepare().peeked).toBeUndefined();
  });

  it('is ignored when an event it saw was changed, removed, added or made unreadable', () => {
    const seen = seenNames();
    const finished = seen.filter((n) => n.includes('-task_finished-'));
    const file = join(paths.eventsDir, finished[3]!);
    const changed = { ...(JSON.parse(readFileSync(file, 'utf8')) as object), evidence: 'written again later' };
    writeFileSync(file, `${JSON.stringify(changed)}\n`);
    expect(prepare().trusted).toBeUndefined();
    const fresh = () => (paths = writeRun(join(root, `run-${++round}`), 800, 3).paths);
    fresh();
    unlinkSync(join(paths.eventsDir, seenNames()[40]!));
    expect(prepare().trusted).toBeUndefined();
    fresh();
    const name = seenNames()[40]!;
    copyFileSync(join(paths.eventsDir, name), join(paths.eventsDir, name.replace(/-[0-9a-z]{6}\.json$/, '-zzzzzz.json')));
    expect(prepare().trusted).toBeUndefined();
    fresh();
    writeFileSync(join(paths.eventsDir, seenNames()[40]!), '{"event": "task_fin');
    expect(prepare().trusted).toBeUndefined();
  });

  it('is still trusted when a write the killed orchestrator never finished left a temporary file', () => {
    writeFileSync(join(paths.eventsDir, '.tmp-12345-half-written.json'), '{"event":"task_fin');
    const { files, trusted } = prepare();
    expect(files.problems.map((p) => p.file)).toContain('events/.tmp-12345-half-written.json');
    expect(trusted).toBeDefined();
  });

  it('is still trusted when events were added after it, and they are replayed and checked', () => {
    const later = laterNames().find((n) => n.includes('-task_started-'))!;
    const file = join(paths.eventsDir, later);
    writeFileSync(file, `${JSON.stringify({ ...(JSON.parse(readFileSync(file, 'utf8')) as object), attempt: 9 })}\n`);
    const { files, trusted } = prepare();
    expect(trusted).toBeDefined();
    expect(() => replayRun(files.events, trusted)).toThrow(/determinism violation.*task_started/);
  });
});
