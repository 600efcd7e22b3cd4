import net from 'node:net';
import { ReplyReader } from '@strata/protocol';

/** One batch of encoded commands for `runPipelined`. */
export interface Batch {
  readonly bytes: Buffer;
  /** How many commands (so replies) it holds. */
  readonly commands: number;
}

/** What one pipelined connection sends and hears. */
export interface PipelineBatches {
  /** The next batch, or null when there is no more. */
  next(): Batch | null;
  /** Each reply but an error (the first error ends the run). */
  onReply?(reply: Buffer): void;
  /** Once every reply of a batch is in, before the next batch. */
  onBatchDone?(): void;
}

/**
 * The closed loop every socket load of the bench runs: one connection to
 * 127.0.0.1:`port` writes a batch, waits for all its replies, writes the
 * next, until `next()` has none. The first error reply rejects.
 */
export function runPipelined(port: number, batches: PipelineBatches): Promise<void> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.setNoDelay(true);
    let failed: string | null = null;
    let waiting = 0;
    const replies = new ReplyReader((reply) => {
      if (reply[0] === 0x2d) failed ??= reply.toString('latin1').trimEnd();
      else batches.onReply?.(reply);
    });
    const send = () => {
      const batch = batches.next();
      if (batch === null) {
        sock.end();
        resolve();
        return;
      }
      waiting = batch.commands;
      sock.write(batch.bytes);
    };
    sock.on('data', (d: Buffer) => {
      waiting -= replies.feed(d);
      if (failed !== null) {
        sock.destroy();
        reject(new Error(`server error: ${failed}`));
        return;
      }
      if (waiting <= 0) {
        batches.onBatchDone?.();
        send();
      }
    });
    sock.once('connect', send);
    sock.once('error', reject);
  });
}
