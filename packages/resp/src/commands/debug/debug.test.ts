import { afterEach, describe, expect, test } from 'vitest';
import { RawClient, startServer, type TestServer } from '../../../test/support/test-server.js';

const NOT_ALLOWED =
  '-ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.\r\n';

let servers: TestServer[] = [];
let clients: RawClient[] = [];

async function serverWith(setting?: string): Promise<TestServer> {
  const t = await startServer(
    setting === undefined ? {} : { configValues: { 'enable-debug-command': () => setting } },
  );
  servers.push(t);
  return t;
}

async function client(t: TestServer): Promise<RawClient> {
  const c = await RawClient.connect(t.port);
  clients.push(c);
  return c;
}

afterEach(async () => {
  for (const c of clients) c.socket.destroy();
  for (const t of servers) await t.stop();
  servers = [];
  clients = [];
});

describe('enable-debug-command', () => {
  test('no (the default) refuses DEBUG with Redis 7.0 text; CONFIG GET shows no', async () => {
    const c = await client(await serverWith());
    c.send('DEBUG', 'SLEEP', '0');
    expect(await c.readUntil((s) => s.endsWith('\r\n'))).toBe(NOT_ALLOWED);
    c.send('CONFIG', 'GET', 'enable-debug-command');
    expect(await c.readUntil((s) => s.includes('*2'))).toContain('$2\r\nno\r\n');
  });

  test('yes, set at start through configValues, allows it', async () => {
    const c = await client(await serverWith('yes'));
    c.send('DEBUG', 'SLEEP', '0');
    expect(await c.readUntil((s) => s.endsWith('\r\n'))).toBe('+OK\r\n');
  });

  test('local allows a loopback connection', async () => {
    const c = await client(await serverWith('local'));
    c.send('DEBUG', 'OBJECT', 'missing');
    expect(await c.readUntil((s) => s.endsWith('\r\n'))).toBe('-ERR no such key\r\n');
  });

  test('it stays immutable: CONFIG SET refuses it', async () => {
    const c = await client(await serverWith('yes'));
    c.send('CONFIG', 'SET', 'enable-debug-command', 'no');
    expect(await c.readUntil((s) => s.endsWith('\r\n'))).toMatch(/^-ERR CONFIG SET failed/);
  });
});

describe('DEBUG SLEEP', () => {
  test('holds another client until the sleep ends; the sleeper is answered first', async () => {
    const t = await serverWith('yes');
    const sleeper = await client(t);
    const other = await client(t);
    const order: string[] = [];
    const start = Date.now();
    sleeper.send('DEBUG', 'SLEEP', '0.3');
    const slept = sleeper
      .readUntil((s) => s === '+OK\r\n')
      .then(() => {
        order.push('sleeper');
        return Date.now() - start;
      });
    await new Promise((r) => setTimeout(r, 50));
    other.send('PING');
    const pinged = other
      .readUntil((s) => s === '+PONG\r\n')
      .then(() => {
        order.push('other');
        return Date.now() - start;
      });
    const [a, b] = await Promise.all([slept, pinged]);
    expect(a).toBeGreaterThanOrEqual(280);
    expect(b).toBeGreaterThanOrEqual(280);
    expect(order).toEqual(['sleeper', 'other']);
  });

  test('SLEEP 0 answers at once and holds nobody', async () => {
    const t = await serverWith('yes');
    const c = await client(t);
    const start = Date.now();
    c.send('DEBUG', 'SLEEP', '0');
    c.send('PING');
    await c.readUntil((s) => s === '+OK\r\n+PONG\r\n');
    expect(Date.now() - start).toBeLessThan(200);
  });
});

describe('DEBUG SET-ACTIVE-EXPIRE', () => {
  const expiredKeys = async (c: RawClient): Promise<number> => {
    c.socket.removeAllListeners('data');
    const text = await new Promise<string>((resolve) => {
      let got = '';
      c.socket.on('data', (d: Buffer) => {
        got += d.toString('latin1');
        if (/expired_keys:\d+/.test(got) && got.endsWith('\r\n\r\n')) resolve(got);
      });
      c.send('INFO', 'stats');
    });
    return Number(/expired_keys:(\d+)/.exec(text)![1]);
  };

  test('0 stops the expiry cycle (a key passes unnoticed until read), 1 starts it again', async () => {
    const t = await serverWith('yes');
    const c = await client(t);
    c.send('DEBUG', 'SET-ACTIVE-EXPIRE', '0');
    c.send('SET', 'k', 'v', 'PX', '20');
    await c.readUntil((s) => s === '+OK\r\n+OK\r\n');
    await new Promise((r) => setTimeout(r, 400));
    expect(await expiredKeys(c)).toBe(0);
    const on = await client(t);
    on.send('DEBUG', 'SET-ACTIVE-EXPIRE', '1');
    await on.readUntil((s) => s === '+OK\r\n');
    await new Promise((r) => setTimeout(r, 400));
    expect(await expiredKeys(c)).toBe(1);
  });
});
