import type { Logger } from './logger.js';

/** What the log of a failing store needs of it (hlog's Store). */
export interface WriteErrorSource<E extends { readonly message: string }> {
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
export function logWriteErrors<E extends { readonly message: string }>(
  store: WriteErrorSource<E>,
  name: string,
  dir: string,
  logger: Logger,
  pollMs = RECOVERY_POLL_MS,
): void {
  let failing = false;
  const previous = store.log.onWriteError;
  store.log.onWriteError = (error) => {
    previous?.(error);
    if (failing) return;
    failing = true;
    logger.warning(
      `${name}: cannot write to its log in ${dir}: ${error.message}. ` +
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
