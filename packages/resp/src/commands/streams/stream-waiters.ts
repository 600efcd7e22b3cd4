import type { Client } from '../../server/client.js';
import { serveWaiters } from '../blocking/blocking-registry.js';

/**
 * A stream at `key` gained entries, or a group of it changed (SETID,
 * DESTROY), or it was replaced: the clients blocked on it (XREAD,
 * XREADGROUP) are served now, first blocked first, each from its own
 * reading of the stream (xread.ts); after the EXEC when inside one. What
 * they took is logged after the running command's own forms (`argv` when
 * it set none).
 */
export function signalStream(c: Client, key: Buffer, argv: Buffer[] | null): void {
  const forms = serveWaiters(c, key);
  if (forms.length === 0 || c.server.commandLog === null || c.replay) return;
  // `argv`: the running command has set no replay form of its own, and is logged as it came.
  if (argv !== null) c.propagate(...argv);
  for (const f of forms) c.propagate(...f);
}
