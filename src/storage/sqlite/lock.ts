// One writer at a time for an embedded database: a load and an index build both make a new file from the served one
// and rename it over it, so two at once would each drop what the other added. The lock is a file beside the
// database holding its owner's process id; a lock left by a process that no longer runs is taken over.

import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process runs, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class StoreWriteLock {
  private held = true;

  private constructor(private readonly path: string) {}

  /** The lock of the database at `file`, or null while another writer (in this process or another) holds it. */
  static tryAcquire(file: string): StoreWriteLock | null {
    const path = `${file}.lock`;
    // The first load of a store makes its folder.
    mkdirSync(dirname(path), { recursive: true });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(path, 'wx');
        writeSync(fd, String(process.pid));
        closeSync(fd);
        return new StoreWriteLock(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        let owner = Number.NaN;
        try {
          owner = Number(readFileSync(path, 'utf8'));
        } catch {
          // Released meanwhile: try again.
          continue;
        }
        // An owner that died (or a file cut short before its pid was written, by a crash) leaves a stale lock.
        if (Number.isInteger(owner) && owner > 0 && alive(owner)) return null;
        rmSync(path, { force: true });
      }
    }
    return null;
  }

  /** The lock, once the writer holding it is done; throws after `timeoutMs`. */
  static async acquire(file: string, timeoutMs: number): Promise<StoreWriteLock> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const lock = StoreWriteLock.tryAcquire(file);
      if (lock) return lock;
      if (Date.now() > until)
        throw new Error(`another load or index build of ${file} has held it for ${Math.round(timeoutMs / 1000)} s`);
      await sleep(100);
    }
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    rmSync(this.path, { force: true });
  }
}
