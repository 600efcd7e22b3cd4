import { afterAll, beforeAll, expect, test } from 'vitest';
import { RawClient, startServer, type TestServer } from '../support/test-server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => {
  await t.stop();
});

test('smoke', async () => {
  const c = await RawClient.connect(t.port);
  c.send('PING');
  c.send('SET', 'a', 'b');
  c.send('GET', 'a');
  c.send('foo', 'bar');
  expect(
    await c.takeLengthOf(
      "+PONG\r\n+OK\r\n$1\r\nb\r\n-ERR unknown command 'foo', with args beginning with: 'bar' \r\n",
    ),
  ).toBe(
    "+PONG\r\n+OK\r\n$1\r\nb\r\n-ERR unknown command 'foo', with args beginning with: 'bar' \r\n",
  );
  c.close();
});
