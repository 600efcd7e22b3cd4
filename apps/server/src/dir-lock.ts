import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StrataError } from '@strata/io';
import type { ServerErrorCode } from './errors.js';

export const LOCK_FILE = 'strata-server.pid';

/** Another live process holds the directory. */
export class DirLockedError extends StrataError<ServerErrorCode> {
  override name = 'DirLockedError';
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      'ERR_DIR_LOCKED',
      `${dir} is in use by another strata-server (pid ${pid}); two servers on one directory ` +
        `would overwrite each other's log. If no server runs there, remove ${join(dir, LOCK_FILE)}.`,
    );
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * `<dir>/strata-server.pid`, created exclusively with this process's pid:
 * one server per data directory. A file left by a process that is gone
 * (a crash, kill -9) is taken over.
 */
export class DirLock {
  private released = false;

  private constructor(readonly path: string) {}

  static acquire(dir: string): DirLock {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, LOCK_FILE);
    for (let attempt = 0; ; attempt++) {
      try {
        const fd = openSync(path, 'wx');
        try {
          writeSync(fd, `${process.pid}\n`);
        } finally {
          closeSync(fd);
        }
        return new DirLock(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw e;
      }
      let pid = Number.NaN;
      try {
        pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
      } catch {
        // Removed meanwhile: try again.
      }
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
        throw new DirLockedError(dir, pid);
      }
      try {
        unlinkSync(path); // stale
      } catch {
        // Gone already.
      }
    }
  }

  /** Removes the file (synchronous: it also runs from an 'exit' handler). */
  release(): void {
    if (this.released) return;
    this.released = true;
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone.
    }
  }
}
