import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { ScriptMode } from './script-run.js';

const AOF_ERROR = 'MISCONF Errors writing to the AOF file: ';
const BLOCKED = "Writable scripts are blocked. Use 'no-writes' flag for read only scripts.";

/**
 * Redis 7.0's scriptPrepareForRun: the rules a flagged script (one with a
 * shebang, and every function) is held to before it starts, and the mode it
 * runs in. A script without a shebang (`flagged` false) is Redis's
 * EVAL_COMPAT_MODE: only an *_RO command makes it read-only.
 *
 * Of the flags only `no-writes` has an effect here: `no-cluster` and
 * `allow-cross-slot-keys` concern a cluster, `allow-stale` a replica whose
 * link is down, `allow-oom` a server past `maxmemory`, and strata has none
 * of them, so those scripts run as Redis runs them on a standalone primary
 * under its memory limit.
 */
export function prepareRun(
  c: Client,
  flagged: boolean,
  noWrites: boolean,
  readOnlyCommand: boolean,
): ScriptMode {
  if (flagged && !noWrites) {
    // A script that may write is refused while writes fail, before it runs (not at its first write).
    const server = c.server;
    const writeError = server.writeError === null ? null : server.currentWriteError();
    if (writeError !== null) throw new CommandError('ERR_MISCONF', blockedWrites(writeError));
    if (readOnlyCommand) {
      throw new CommandError(
        'ERR_SCRIPT',
        'ERR Can not execute a script with write flag using *_ro command.',
      );
    }
  }
  return readOnlyCommand || (flagged && noWrites) ? READ_ONLY : READ_WRITE;
}

const READ_ONLY: ScriptMode = { readOnly: true };
const READ_WRITE: ScriptMode = { readOnly: false };

/** Redis's words for a script refused because writes fail: its AOF form, else strata's reason first. */
function blockedWrites(writeError: string): string {
  if (writeError.startsWith(AOF_ERROR)) {
    return `MISCONF Redis is configured to persist data to AOF, but it's currently unable to persist to disk. ${BLOCKED} AOF error: ${writeError.slice(AOF_ERROR.length)}`;
  }
  return `${writeError.replace(/\.?$/, '.')} ${BLOCKED}`;
}
