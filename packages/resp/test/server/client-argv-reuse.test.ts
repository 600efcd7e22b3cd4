import { encodeCommand } from '@strata/protocol';
import { afterEach, expect, test } from 'vitest';
import { stringCommands } from '../../src/commands/strings/strings.js';
import type { CommandDefinition } from '../../src/server/command-table.js';
import type { ServerState } from '../../src/server/server-state.js';
import { RawClient, startServer, type TestServer } from '../support/test-server.js';

let server: TestServer | null = null;
let raw: RawClient | null = null;
afterEach(async () => {
  raw?.close();
  raw = null;
  await server?.stop();
  server = null;
});

/** One chunk of commands: the parser reuses the arguments arrays of GET and SET that ended. */
function chunk(commands: string[][]): Buffer {
  return Buffer.concat(commands.map((c) => encodeCommand(c)));
}

test('pipelined GET/SET reuse arguments arrays without touching queued or pending commands', async () => {
  server = await startServer();
  raw = await RawClient.connect(server.port);
  // MULTI keeps SET b and SET c (same length as the SETs and GETs around them)
  // until EXEC: an array reused under them would run another command twice.
  raw.write(
    chunk([
      ['SET', 'a', '1'],
      ['GET', 'a'],
      ['MULTI'],
      ['SET', 'b', '2'],
      ['SET', 'c', '3'],
      ['GET', 'a'],
      ['EXEC'],
      ['SET', 'x', '9'],
      ['GET', 'b'],
      ['GET', 'c'],
      ['set', 'd', '4'],
      ['GET', 'd'],
      ['GET', 'x'],
    ]),
  );
  const expected = [
    '+OK\r\n',
    '$1\r\n1\r\n',
    '+OK\r\n',
    '+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n',
    '*3\r\n+OK\r\n+OK\r\n$1\r\n1\r\n',
    '+OK\r\n',
    '$1\r\n2\r\n$1\r\n3\r\n',
    '+OK\r\n$1\r\n4\r\n$1\r\n9\r\n',
  ].join('');
  expect(await raw.takeLengthOf(expected)).toBe(expected);
  // Many keys, most of them pushed to the device by the small store: GETs that
  // wait on the disk hold their arrays while later commands are parsed.
  const n = 3000;
  const sets: string[][] = [];
  for (let i = 0; i < n; i++) sets.push(['SET', `key:${i}`, `value-${i}-${'v'.repeat(40)}`]);
  raw.write(chunk(sets));
  await raw.takeLengthOf('+OK\r\n'.repeat(n));
  const gets: string[][] = [];
  for (let i = 0; i < n; i++) gets.push(['GET', `key:${(i * 7919) % n}`]);
  raw.write(chunk(gets));
  const want = gets
    .map(([, k]) => {
      const v = `value-${k!.slice(4)}-${'v'.repeat(40)}`;
      return `$${v.length}\r\n${v}\r\n`;
    })
    .join('');
  expect(await raw.takeLengthOf(want, 20_000)).toBe(want);
});

test('GETs and SETs parsed ahead stop at the first other command: AUTH lifts the limits of what follows', async () => {
  server = await startServer({ requirepass: 'pw' });
  raw = await RawClient.connect(server.port);
  // Before AUTH a bulk over 16 KB is a protocol error (Redis's unauthenticated
  // limit); parsed after AUTH ran, the same SET is fine. Parsing on past AUTH
  // with the GETs before it would close the connection.
  const big = 'b'.repeat(20_000);
  raw.write(
    chunk([
      ['GET', 'a'],
      ['get', 'b'],
      ['AUTH', 'pw'],
      ['SET', 'k', big],
      ['GET', 'k'],
      ['SET', 'j', '1'],
      ['GET', 'j'],
    ]),
  );
  const noauth = '-NOAUTH Authentication required.\r\n';
  const expected = `${noauth}${noauth}+OK\r\n+OK\r\n$${big.length}\r\n${big}\r\n+OK\r\n$1\r\n1\r\n`;
  expect(await raw.takeLengthOf(expected)).toBe(expected);
});

test('an app that replaces GET turns parsing ahead off (its handler may change what later bytes mean)', async () => {
  const builtin = stringCommands.find((d) => d.name === 'get')!;
  const calls: string[] = [];
  const mine: CommandDefinition = {
    ...builtin,
    handler: (c, argv) => {
      calls.push(argv[1]!.toString());
      c.reply.bulk(Buffer.from('mine'));
      return undefined;
    },
  };
  server = await startServer({ commands: [mine] });
  const state = (server.server as unknown as { state: ServerState }).state;
  expect(state.parseAhead).toBe(false);
  raw = await RawClient.connect(server.port);
  raw.write(
    chunk([
      ['GET', 'a'],
      ['SET', 'a', '1'],
      ['GET', 'a'],
    ]),
  );
  const expected = '$4\r\nmine\r\n+OK\r\n$4\r\nmine\r\n';
  expect(await raw.takeLengthOf(expected)).toBe(expected);
  expect(calls).toEqual(['a', 'a']);
  const plain = await startServer();
  try {
    expect((plain.server as unknown as { state: ServerState }).state.parseAhead).toBe(true);
  } finally {
    await plain.stop();
  }
});
