import { DirLock } from '@strata/io';

/** strata-server's lock on its `--dir` (io's DirLock: pid and start time, stale files taken over). */
export const LOCK_FILE = 'strata-server.pid';

/** One server per directory, before any store opens: a second one would write its pages over the first one's. */
export function lockServerDir(dir: string): DirLock {
  return DirLock.acquire(dir, { file: LOCK_FILE, holder: 'strata-server' });
}
