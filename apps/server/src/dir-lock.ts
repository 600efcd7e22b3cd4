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
 * When process `pid` started (Linux: /proc/<pid>/stat's starttime, in clock
 * ticks since boot), or null where that cannot be read. A pid and its start
 * time name one process: a pid reused after a crash has another start.
 */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Fields after the command name, which may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null; // field 22 of the whole line
  } catch {
    return null;
  }
}

/** Whether process `pid`'s command line names strata (null: it cannot be read). */
function looksLikeStrata(pid: number): boolean | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('strata');
  } catch {
    return null;
  }
}

/**
 * Does the lock file's holder still run? Its pid must be alive and be the
 * same process: the start time the file recorded (a file from before start
 * times were recorded: a command line that names strata). Where /proc is
 * not there to tell, a live pid holds the directory.
 */
function holderRuns(pid: number, start: string | null): boolean {
  if (!alive(pid)) return false;
  const now = processStart(pid);
  if (now === null) return true;
  if (start !== null && start !== '') return now === start;
  return looksLikeStrata(pid) ?? true;
}

/**
 * `<dir>/strata-server.pid`, created exclusively with this process's pid
 * and start time: one server per data directory. A file left by a process
 * that is gone (a crash, kill -9), or whose pid now names another process,
 * is taken over.
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
          writeSync(fd, `${process.pid}\n${processStart(process.pid) ?? ''}\n`);
        } finally {
          closeSync(fd);
        }
        return new DirLock(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw e;
      }
      let pid = Number.NaN;
      let start: string | null = null;
      try {
        const [first, second] = readFileSync(path, 'utf8').split('\n');
        pid = Number.parseInt(first ?? '', 10);
        start = second ?? null;
      } catch {
        // Removed meanwhile: try again.
      }
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && holderRuns(pid, start)) {
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
