import { encodeCommand } from '@strata/protocol';
import { afterEach, describe, expect, test } from 'vitest';
import { RawClient, startServer, type TestServer } from '../support/test-server.js';

/**
 * The connection loop through both ways a socket's reads reach it: the
 * shared-buffer hook (the default) and 'data' events (the fallback,
 * STRATA_SOCKET_READS=data). Each mode gets a pipeline split at every few
 * bytes, commands that wait on the disk (reading pauses, then resumes) and
 * QUIT after them.
 */
let server: TestServer | null = null;
const saved = process.env.STRATA_SOCKET_READS;
afterEach(async () => {
  await server?.stop();
  server = null;
  if (saved === undefined) delete process.env.STRATA_SOCKET_READS;
  else process.env.STRATA_SOCKET_READS = saved;
});

const chunk = (commands: string[][]) => Buffer.concat(commands.map((c) => encodeCommand(c)));

describe.each(['hook', 'data'])('reads through %s', (mode) => {
  test('split pipelines, commands on disk and QUIT answer in order', async () => {
    if (mode === 'data') process.env.STRATA_SOCKET_READS = 'data';
    else delete process.env.STRATA_SOCKET_READS;
    server = await startServer();
    const raw = await RawClient.connect(server.port);
    // Enough keys that the small store pushes most of them to the device.
    const n = 2000;
    const sets: string[][] = [];
    for (let i = 0; i < n; i++) sets.push(['SET', `key:${i}`, `value-${i}-${'v'.repeat(40)}`]);
    raw.write(chunk(sets));
    expect(await raw.takeLengthOf('+OK\r\n'.repeat(n), 20_000)).toBe('+OK\r\n'.repeat(n));
    const gets: string[][] = [];
    let expected = '';
    for (let i = 0; i < n; i += 7) {
      gets.push(['GET', `key:${i}`]);
      const v = `value-${i}-${'v'.repeat(40)}`;
      expected += `$${v.length}\r\n${v}\r\n`;
    }
    gets.push(['QUIT']);
    expected += '+OK\r\n';
    const bytes = chunk(gets);
    // Every few bytes its own write: commands split anywhere across reads.
    for (let at = 0; at < bytes.length; at += 5) raw.write(bytes.subarray(at, at + 5));
    expect(await raw.takeLengthOf(expected, 20_000)).toBe(expected);
    await raw.waitClosed();
  }, 30_000);
});
