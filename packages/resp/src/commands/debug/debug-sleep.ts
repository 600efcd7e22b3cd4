import type { Client } from '../../server/client.js';
import { PAUSE_ALL } from '../../server/client-pause.js';
import type { CommandResult } from '../../server/command-table.js';

/** Redis's strtod: the longest leading number (none is 0). */
function strtod(text: string): number {
  const n = Number.parseFloat(text);
  return Number.isNaN(n) ? 0 : n;
}

/**
 * DEBUG SLEEP seconds: Redis stops its event loop, so every other client's
 * commands wait and are answered after. Here the server pauses all
 * clients (CLIENT PAUSE ALL's holding, not a busy wait) for that long and
 * this client is answered OK when the pause ends, before the held ones.
 * 0, negative or not a number: OK at once.
 */
export function debugSleep(c: Client, argv: Buffer[]): CommandResult {
  const ms = Math.floor(strtod(argv[2]!.toString('latin1')) * 1000);
  if (!(ms > 0)) {
    c.reply.simple('OK');
    return undefined;
  }
  const pause = c.server.clientPause;
  // Held first: this client's OK goes out before the held clients run.
  const done = pause.wait();
  pause.pause(PAUSE_ALL, Date.now() + ms, () => true);
  return done.then(() => {
    c.reply.simple('OK');
  });
}
