import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { readChunks } from './socket-reader.js';

let server: Server | null = null;
const sockets: Socket[] = [];
// A whole run may ask for the fallback (STRATA_SOCKET_READS=data): these
// tests choose their mode themselves and give the setting back.
const saved = process.env.STRATA_SOCKET_READS;
beforeEach(() => {
  delete process.env.STRATA_SOCKET_READS;
});
afterEach(async () => {
  for (const s of sockets) s.destroy();
  sockets.length = 0;
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
  if (saved === undefined) delete process.env.STRATA_SOCKET_READS;
  else process.env.STRATA_SOCKET_READS = saved;
});

interface Accepted {
  socket: Socket;
  mode: 'hook' | 'data';
  chunks: Buffer[];
}

/** A loopback server whose accepted sockets read through `readChunks`, and a client of it. */
async function pair(): Promise<{ client: Socket; accepted: Promise<Accepted> }> {
  let resolveAccepted!: (a: Accepted) => void;
  const accepted = new Promise<Accepted>((r) => (resolveAccepted = r));
  server = createServer((socket) => {
    sockets.push(socket);
    const chunks: Buffer[] = [];
    const mode = readChunks(socket, (c) => chunks.push(c));
    resolveAccepted({ socket, mode, chunks });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  sockets.push(client);
  await once(client, 'connect');
  return { client, accepted };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}

const total = (chunks: Buffer[]) => Buffer.concat(chunks).toString('latin1');

test('each chunk is its own copy: later reads do not overwrite it', async () => {
  const { client, accepted } = await pair();
  const a = await accepted;
  expect(a.mode).toBe('hook');
  client.write('first-chunk');
  await until(() => total(a.chunks).length === 11);
  const first = a.chunks[0]!;
  client.write('SECOND-CHUNK-LONGER');
  await until(() => total(a.chunks).length === 30);
  expect(first.toString('latin1')).toBe('first-chunk');
  expect(total(a.chunks)).toBe('first-chunkSECOND-CHUNK-LONGER');
});

test('two connections read through the shared buffer keep their own bytes', async () => {
  const one = await pair();
  const a = await one.accepted;
  const client2 = connect((server!.address() as AddressInfo).port, '127.0.0.1');
  sockets.push(client2);
  const b = await new Promise<Accepted>((resolve) => {
    server!.removeAllListeners('connection');
    server!.on('connection', (socket: Socket) => {
      sockets.push(socket);
      const chunks: Buffer[] = [];
      resolve({ socket, mode: readChunks(socket, (c) => chunks.push(c)), chunks });
    });
  });
  const big = 'x'.repeat(200_000);
  one.client.write(big);
  client2.write('y'.repeat(1000));
  one.client.write('tail');
  await until(() => total(a.chunks).length === big.length + 4 && total(b.chunks).length === 1000);
  expect(total(a.chunks)).toBe(`${big}tail`);
  expect(total(b.chunks)).toBe('y'.repeat(1000));
});

test('pause stops reading until resume; the end of input still closes the socket', async () => {
  const { client, accepted } = await pair();
  const a = await accepted;
  client.write('one');
  await until(() => a.chunks.length === 1);
  a.socket.pause();
  client.write('two');
  await new Promise((r) => setTimeout(r, 100));
  expect(total(a.chunks)).toBe('one');
  a.socket.resume();
  await until(() => total(a.chunks) === 'onetwo');
  const closed = once(a.socket, 'close');
  client.end();
  await closed;
});

test('STRATA_SOCKET_READS=data uses data events, with the same results', async () => {
  process.env.STRATA_SOCKET_READS = 'data';
  const { client, accepted } = await pair();
  const a = await accepted;
  expect(a.mode).toBe('data');
  client.write('abc');
  client.write('def');
  await until(() => total(a.chunks) === 'abcdef');
  const closed = once(a.socket, 'close');
  client.end();
  await closed;
});
