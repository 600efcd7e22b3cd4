import { once } from 'node:events';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TurnWrites } from './turn-writes.js';

/** A loopback pair: `client` connects to a server whose side is `server`. */
async function pair(): Promise<{ client: net.Socket; server: net.Socket; close: () => void }> {
  const listener = net.createServer();
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const { port } = listener.address() as net.AddressInfo;
  const accepted = once(listener, 'connection');
  const client = net.connect(port, '127.0.0.1');
  await once(client, 'connect');
  const [server] = (await accepted) as [net.Socket];
  return {
    client,
    server,
    close: () => {
      client.destroy();
      server.destroy();
      listener.close();
    },
  };
}

describe('TurnWrites', () => {
  const open: Array<() => void> = [];
  afterEach(() => {
    for (const close of open.splice(0)) close();
  });

  it('holds a turn’s writes to a socket and sends them, in order, once the turn ends', async () => {
    const p = await pair();
    open.push(p.close);
    const turn = new TurnWrites();
    turn.hold(p.server);
    p.server.write('a');
    turn.hold(p.server); // held once per turn however often written
    p.server.write('b');
    expect(p.server.writableCorked).toBe(1);
    expect(p.server.writableLength).toBe(2); // backpressure still counts them
    await new Promise((r) => setImmediate(r));
    expect(p.server.writableCorked).toBe(0);
    const [got] = (await once(p.client, 'data')) as [Buffer];
    expect(got.toString()).toBe('ab');
    // A later turn holds the socket again.
    turn.hold(p.server);
    expect(p.server.writableCorked).toBe(1);
    p.server.write('c');
    const [next] = (await once(p.client, 'data')) as [Buffer];
    expect(next.toString()).toBe('c');
  });

  it('runs beforeRelease first, while the turn’s writes are still held', async () => {
    const p = await pair();
    open.push(p.close);
    const seen: number[] = [];
    const turn = new TurnWrites(() => seen.push(p.server.writableCorked));
    turn.hold(p.server);
    p.server.write('x');
    expect(seen).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(seen).toEqual([1]);
    expect(p.server.writableCorked).toBe(0);
  });

  it('sends every socket written in the turn, and leaves alone one that end() sent already', async () => {
    const a = await pair();
    const b = await pair();
    open.push(a.close, b.close);
    const turn = new TurnWrites();
    turn.hold(a.server);
    a.server.write('one');
    turn.hold(b.server);
    b.server.write('two');
    a.server.end(); // end() uncorks: its bytes go out before the FIN
    expect(a.server.writableCorked).toBe(0);
    const gotA = once(a.client, 'data');
    const gotB = once(b.client, 'data');
    await new Promise((r) => setImmediate(r));
    expect(((await gotA) as [Buffer])[0].toString()).toBe('one');
    expect(((await gotB) as [Buffer])[0].toString()).toBe('two');
  });
});
