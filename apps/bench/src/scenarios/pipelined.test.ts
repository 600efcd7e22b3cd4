import net from 'node:net';
import { encodeCommand } from '@strata/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { runPipelined } from './pipelined.js';

/** A loopback server that answers each PING with `reply(n)` (n: its count so far). */
async function replyServer(reply: (n: number) => string): Promise<{ port: number; close(): void }> {
  let n = 0;
  const server = net.createServer((sock) => {
    let bytes = 0;
    sock.on('data', (d: Buffer) => {
      // Every command of these tests is one PING: PING.length bytes.
      bytes += d.length;
      while ((n + 1) * PING.length <= bytes) sock.write(reply(n++));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

const PING = encodeCommand([Buffer.from('PING')]);
let close = () => {};
afterEach(() => close());

describe('runPipelined', () => {
  it('sends batch after batch, waiting for each batch’s replies', async () => {
    const srv = await replyServer(() => '+PONG\r\n');
    close = srv.close;
    const sizes = [3, 1, 5];
    let replies = 0;
    const done: number[] = [];
    await runPipelined(srv.port, {
      next() {
        const n = sizes.shift();
        return n === undefined ? null : { bytes: Buffer.concat(Array(n).fill(PING)), commands: n };
      },
      onReply: () => replies++,
      onBatchDone: () => done.push(replies),
    });
    expect(done).toEqual([3, 4, 9]);
  });

  it('rejects on the first error reply', async () => {
    const srv = await replyServer((n) => (n === 1 ? '-ERR nope\r\n' : '+PONG\r\n'));
    close = srv.close;
    let batches = 0;
    const run = runPipelined(srv.port, {
      next: () => (batches++ < 10 ? { bytes: Buffer.concat([PING, PING]), commands: 2 } : null),
    });
    await expect(run).rejects.toThrow('server error: -ERR nope');
    expect(batches).toBe(1);
  });
});
