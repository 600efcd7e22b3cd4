import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeCommand } from '@strata/protocol';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { storeDatabases } from '../../src/server/keyspace.js';
import { RespServer } from '../../src/server/resp-server.js';
import { RawClient, SMALL_STORE } from '../support/test-server.js';
import { failingReads } from './failing-reads.js';

/**
 * A store read that fails while a command's reply is half written (the fuzz
 * run met this as hlog's 'no valid record' before that was fixed): the
 * command must answer one error, and the replies after it stay in step.
 * Reads of keys starting with `bad` fail as a device read would.
 */

let dir: string;
let server: RespServer;
let port: number;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-store-errors-'));
  server = new RespServer({
    databases: failingReads(
      storeDatabases({ dir, store: { ...SMALL_STORE, checkpointOnClose: false } }),
      (key) => key.toString('latin1').startsWith('bad'),
    ),
  });
  port = (await server.listen(0)).port;
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

test('MGET whose read fails after keys in memory: one error reply, the next replies in step', async () => {
  const c = await RawClient.connect(port);
  c.write(
    Buffer.concat([
      encodeCommand(['SET', 'a', '1']),
      encodeCommand(['MGET', 'a', 'a', 'bad', 'a']),
      encodeCommand(['MGET', 'bad', 'a']),
      encodeCommand(['MGET', 'a', 'nope']),
      encodeCommand(['PING']),
    ]),
  );
  const want =
    '+OK\r\n-ERR device read failed\r\n-ERR device read failed\r\n*2\r\n$1\r\n1\r\n$-1\r\n+PONG\r\n';
  expect(await c.readUntil((s) => s.length >= want.length)).toBe(want);
  c.close();
});
