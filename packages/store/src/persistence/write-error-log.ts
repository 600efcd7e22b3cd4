import { join } from 'node:path';
import type { AofError } from '@strata/aof';
import { aofWriteErrorMessage } from '@strata/resp';
import type { PersistenceLogger } from './persistence-logger.js';

/** What a log line says of a failure: hlog's IoError carries the segment and the OS code. */
export interface WriteFailure {
  readonly message: string;
  readonly segment?: number | undefined;
  readonly osCode?: string | undefined;
}

/** What the log of a failing store needs of it (hlog's Store). */
export interface WriteErrorSource<E extends WriteFailure> {
  readonly writeError: E | null;
  readonly log: { onWriteError: ((error: E) => void) | null };
}

/** How often a failing store is looked at to see its writes work again. */
const RECOVERY_POLL_MS = 1000;

/**
 * Logs a database's device write failures (a full disk, an fsync error)
 * once per episode, with its directory, and logs when its writes work again:
 * meanwhile the server answers writes with MISCONF and retries the failed
 * pages every second (resp's StoreHealth), so a thousand failed flushes make
 * one line, not a thousand. Chains any listener set before.
 */
export function logWriteErrors<E extends WriteFailure>(
  store: WriteErrorSource<E>,
  name: string,
  dir: string,
  logger: PersistenceLogger,
  pollMs = RECOVERY_POLL_MS,
): void {
  let failing = false;
  const previous = store.log.onWriteError;
  store.log.onWriteError = (error) => {
    previous?.(error);
    if (failing) return;
    failing = true;
    // The file when the device says which segment (a sync failure names none).
    const where =
      error.segment === undefined ? `in ${dir}` : `file ${join(dir, `log.${error.segment}`)}`;
    const os = error.osCode === undefined ? '' : ` (${error.osCode})`;
    logger.warning(
      `${name}: cannot write to its log ${where}${os}: ${error.message}. ` +
        'Writes are refused (MISCONF) until it can write again; retrying every second.',
    );
    const poll = setInterval(() => {
      if (store.writeError !== null) return;
      clearInterval(poll);
      failing = false;
      logger.notice(`${name}: its log in ${dir} can be written again; writes are accepted.`);
    }, pollMs);
    poll.unref();
  };
}

/**
 * The log line of an AOF write or fsync failure: Redis's words, then the
 * file and the OS code, so an operator knows which disk and why.
 */
export function aofFailureLine(path: string, error: AofError): string {
  const what =
    error.operation === 'fsync'
      ? `Error trying to fsync the AOF file ${path}`
      : `Error writing to the AOF file ${path}`;
  const os = error.osCode === undefined ? '' : ` (${error.osCode})`;
  return (
    `${what}: ${error.message}${os}. ` +
    'Writes are refused (MISCONF) until it works again; retrying in the background.'
  );
}

/**
 * An AOF's writes failed (`error`; once per episode: the writer reports
 * changes of state, not each retry) or work again (null): logged, and
 * meanwhile writes are refused before they run (MISCONF, Redis's wording
 * without the path) through `setWriteError`.
 */
export function reportAofWriteStatus(
  error: AofError | null,
  path: string,
  logger: PersistenceLogger,
  setWriteError: (message: string | null) => void,
): void {
  if (error === null) {
    logger.warning(`AOF write error looks solved, Strata can write again (${path}).`);
    setWriteError(null);
    return;
  }
  logger.warning(aofFailureLine(path, error));
  setWriteError(aofWriteErrorMessage(error.message));
}
