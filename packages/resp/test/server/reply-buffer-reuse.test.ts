import net from 'node:net';
import { expect, test } from 'vitest';
import { startServer } from '../support/test-server.js';

/**
 * A connection writes its replies from its buffer's start again when its
 * socket has nothing queued (ReplyWriter.reuse, checked as requests come
 * in). Many replies that fill the buffer over and over, to a client that
 * does not read until it has asked for all of them (so the socket's
 * kernel buffers fill and the server's writes wait), must arrive byte for
 * byte.
 */
test('pipelined replies larger than the reply buffer, read late, arrive whole', async () => {
  const t = await startServer();
  try {
    const values = Array.from({ length: 40 }, (_, i) =>
      String.fromCharCode(0x61 + (i % 26)).repeat(2000 + i * 53),
    );
    const setup = await net.createConnection(t.port, '127.0.0.1');
    await new Promise<void>((resolve) => setup.once('connect', () => resolve()));
    let sets = '';
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      sets += `*3\r\n$3\r\nSET\r\n$${`k${i}`.length}\r\nk${i}\r\n$${v.length}\r\n${v}\r\n`;
    }
    setup.write(sets);
    let acks = '';
    await new Promise<void>((resolve) =>
      setup.on('data', (d) => {
        acks += d.toString('latin1');
        if (acks.length === values.length * 5) resolve();
      }),
    );
    setup.destroy();

    // Reading paused while ~15 MB of replies are asked for, a few GETs per
    // write: the socket's kernel buffers fill, and later replies wait in the
    // socket (writableLength > 0) while more requests arrive.
    const gets = 5000;
    const expected: string[] = [];
    const requests: string[] = [];
    for (let n = 0; n < gets; n++) {
      const k = (n * 7) % values.length;
      requests.push(`*2\r\n$3\r\nGET\r\n$${`k${k}`.length}\r\nk${k}\r\n`);
      expected.push(`$${values[k]!.length}\r\n${values[k]}\r\n`);
    }
    const want = expected.join('');
    const c = net.createConnection(t.port, '127.0.0.1');
    await new Promise<void>((resolve) => c.once('connect', () => resolve()));
    const chunks: Buffer[] = [];
    let got = 0;
    const done = new Promise<void>((resolve) =>
      c.on('data', (d: Buffer) => {
        chunks.push(d);
        got += d.length;
        if (got >= want.length) resolve();
      }),
    );
    c.pause();
    for (let n = 0; n < gets; n += 3) {
      c.write(requests.slice(n, n + 3).join(''));
      await new Promise((r) => setImmediate(r));
    }
    await new Promise((r) => setTimeout(r, 100));
    c.resume();
    await done;
    c.destroy();
    const text = Buffer.concat(chunks).toString('latin1');
    expect(text.length).toBe(want.length);
    expect(text === want).toBe(true);
  } finally {
    await t.stop();
  }
});
