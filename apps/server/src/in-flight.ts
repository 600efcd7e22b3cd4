import type { RespServer } from '@strata/resp';

/**
 * Commands of every client still waiting on the disk. RespServer counts
 * them in its private state and has no public accessor yet (it should grow
 * one, or a draining close()); this reads the count through one narrow
 * cast, so shutdown can let them finish before close() drops the clients.
 * Reads 0 if the field ever goes away: close() then behaves as it always did.
 */
export function commandsInFlight(server: RespServer): number {
  const state = (server as unknown as { state?: { inFlight?: unknown } }).state;
  return typeof state?.inFlight === 'number' ? state.inFlight : 0;
}

/** Waits until no command is in flight or `timeoutMs` passed; resolves with how many remain. */
export async function waitForCommands(server: RespServer, timeoutMs: number): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let n = commandsInFlight(server);
  while (n > 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 2));
    n = commandsInFlight(server);
  }
  return n;
}
