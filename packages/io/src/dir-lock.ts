import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { StrataError } from './errors.js';

/** Another live holder (another process, or another open in this one) has the directory. */
export class DirLockedError extends StrataError {
  override name = 'DirLockedError';
  constructor(
    readonly dir: string,
    readonly pid: number,
    holder: string,
    file: string,
  ) {
    super(
      'ERR_LOCKED',
      `${dir} is in use by another ${holder} (pid ${pid}); two on one directory would ` +
        `overwrite each other's log. If none runs there, remove ${join(dir, file)}.`,
    );
  }
}

export interface DirLockOptions {
  /** The lock file's name in the directory. */
  readonly file: string;
  /** What holds such a lock, for the error ("strata-server", "Store"). */
  readonly holder: string;
}

/** Lock files this process holds (resolved paths): a second open here is refused too. */
const heldHere = new Set<string>();

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
 * `<dir>/<file>`, created exclusively with this process's pid and start
 * time: one holder per directory, across processes and within this one. A
 * file left by a process that is gone (a crash, kill -9), whose pid now
 * names another process, or by this process after `forget()` (a simulated
 * crash), is taken over.
 */
export class DirLock {
  private released = false;

  private constructor(readonly path: string) {}

  static acquire(dir: string, options: DirLockOptions): DirLock {
    mkdirSync(dir, { recursive: true });
    // The real path: two names of one directory (a symlink) are one lock here.
    const path = join(realpathSync(dir), options.file);
    if (heldHere.has(path))
      throw new DirLockedError(dir, process.pid, options.holder, options.file);
    for (let attempt = 0; ; attempt++) {
      try {
        const fd = openSync(path, 'wx');
        try {
          writeSync(fd, `${process.pid}\n${processStart(process.pid) ?? ''}\n`);
        } finally {
          closeSync(fd);
        }
        heldHere.add(path);
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
        throw new DirLockedError(dir, pid, options.holder, options.file);
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
    heldHere.delete(this.path);
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone.
    }
  }

  /** Lets go in this process but leaves the file, as a crash would (tests' simulated crashes). */
  forget(): void {
    if (this.released) return;
    this.released = true;
    heldHere.delete(this.path);
  }
}
