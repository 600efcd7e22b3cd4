import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import type { Logger } from './logger.js';
import { strerror } from './system-error.js';

/**
 * Redis's pidfile: `<pid>\n`, written best-effort (a failure is a warning,
 * the server runs on). Returns whether it was written.
 */
export function writePidFile(path: string, logger: Logger): boolean {
  try {
    writeFileSync(path, `${process.pid}\n`);
    return true;
  } catch (e) {
    logger.warning(`Failed to write PID file: ${strerror(e)}`);
    return false;
  }
}

/** Removes the pidfile at exit, unless another process has written its own there since. */
export function removePidFile(path: string, logger: Logger): void {
  try {
    if (readFileSync(path, 'utf8').trim() !== String(process.pid)) return;
    logger.notice('Removing the pid file.');
    unlinkSync(path);
  } catch {
    // Gone already.
  }
}
