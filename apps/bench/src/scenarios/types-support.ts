import { encodeCommand } from '@strata/protocol';
import { runPipelined } from './pipelined.js';
import { type BenchLoad, redisBenchmark } from './server-harness.js';

// The process, port and redis-benchmark plumbing is server-harness's.
export { type BenchLoad, freePort, which } from './server-harness.js';

/**
 * Socket plumbing of the `types` scenario: redis-benchmark runs of
 * arbitrary commands, and bulk loading over one pipelined socket.
 */

/**
 * redis-benchmark running one command (`__rand_int__` replaced by a random
 * number below `keyspace`) with `clients` connections and pipeline `depth`.
 */
export function benchmarkCommand(
  port: number,
  command: readonly string[],
  o: { requests: number; clients: number; depth: number; keyspace: number },
): Promise<BenchLoad> {
  return redisBenchmark(port, command, o);
}

/**
 * Sends every command over one connection, pipelined in batches, and waits
 * for all the replies (counted by their line starts: the commands used here
 * answer with integers, simple strings or errors). Error replies throw.
 */
export function sendAll(port: number, commands: readonly (readonly string[])[]): Promise<void> {
  return sendEach(port, commands.length, (i) => commands[i]!);
}

/**
 * `sendAll` of `count` commands made one at a time by `commandOf(i)`, so a
 * million of them need not be held at once.
 */
export function sendEach(
  port: number,
  count: number,
  commandOf: (i: number) => readonly string[],
): Promise<void> {
  const BATCH = 64;
  let next = 0;
  return runPipelined(port, {
    next() {
      const parts: Buffer[] = [];
      for (let i = 0; i < BATCH && next < count; i++, next++) {
        parts.push(encodeCommand(commandOf(next).map((a) => Buffer.from(a, 'latin1'))));
      }
      return parts.length === 0 ? null : { bytes: Buffer.concat(parts), commands: parts.length };
    },
  });
}
