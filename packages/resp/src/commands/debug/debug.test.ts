import { Store, type StoreCore } from '@strata/hlog';
import { MemoryDevice } from '@strata/io';
import { afterEach, describe, expect, test } from 'vitest';
import { RawClient, startServer, type TestServer } from '../../../test/support/test-server.js';
import type { DatabaseProvider } from '../../server/keyspace.js';
import { RespServer } from '../../server/resp-server.js';

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

/** Sends one command and returns its reply (a one-line one, or a short bulk). */
async function ask(c: RawClient, ...argv: string[]): Promise<string> {
  const before = (await c.readUntil(() => true)).length;
  c.send(...argv);
  const all = await c.readUntil(
    (s) => s.length > before && s.endsWith('\r\n') && !/^\$\d+\r\n$/.test(s.slice(before)),
    // STRINGMATCH-TEST runs for seconds on a busy machine.
    60_000,
  );
  return all.slice(before);
}

describe('DEBUG RELOAD without durable databases', () => {
  /** Databases in memory only: no save, no reopen (an embedding app's provider). */
  async function memoryServer(): Promise<{ server: RespServer; port: number }> {
    const provider: DatabaseProvider = {
      count: 16,
      open: () => Store.open({ device: new MemoryDevice(), expiry: false }),
      async close(_index, store: StoreCore) {
        if (store instanceof Store) await store.close();
      },
    };
    const server = new RespServer({
      databases: provider,
      configValues: { 'enable-debug-command': () => 'yes' },
    });
    const { port } = await server.listen(0);
    return { server, port };
  }

  test("answers Redis's replies when it cannot save (a bare ERR) or load; the data stays", async () => {
    const { server, port } = await memoryServer();
    const c = await RawClient.connect(port);
    try {
      expect(await ask(c, 'SET', 'k', 'v')).toBe('+OK\r\n');
      expect(await ask(c, 'DEBUG', 'RELOAD')).toBe('-ERR\r\n');
      expect(await ask(c, 'DEBUG', 'RELOAD', 'NOSAVE')).toBe(
        '-ERR Error trying to load the RDB dump, check server logs.\r\n',
      );
      // NOSAVE NOFLUSH neither saves nor drops anything.
      expect(await ask(c, 'DEBUG', 'RELOAD', 'NOSAVE', 'NOFLUSH')).toBe('+OK\r\n');
      expect(await ask(c, 'GET', 'k')).toBe('$1\r\nv\r\n');
    } finally {
      c.socket.destroy();
      await server.close();
    }
  });
});

describe('DEBUG LISTPACK / QUICKLIST / RELOAD / CHANGE-REPL-ID log lines', () => {
  test("go to RespServerOptions.log: strata's layout of the value, Redis's RELOAD line", async () => {
    const lines: string[] = [];
    const t = await startServer({
      configValues: { 'enable-debug-command': () => 'yes' },
      log: (level, m) => lines.push(`${level} ${m}`),
    });
    servers.push(t);
    const c = await client(t);
    expect(await ask(c, 'HSET', 'h', 'f', 'v', 'g', 'w')).toBe(':2\r\n');
    expect(await ask(c, 'DEBUG', 'LISTPACK', 'h')).toBe(
      '+Listpack structure printed on stdout\r\n',
    );
    expect(await ask(c, 'DEBUG', 'RELOAD')).toBe('+OK\r\n');
    expect(await ask(c, 'DEBUG', 'CHANGE-REPL-ID')).toBe('+OK\r\n');
    expect(lines[0]).toMatch(/^notice DEBUG LISTPACK h: hash of 2 element\(s\), listpack encoding/);
    expect(lines.slice(1)).toEqual([
      'warning DB reloaded by DEBUG RELOAD',
      'warning Changing replication IDs after receiving DEBUG change-repl-id',
    ]);
  });
});

describe('DEBUG STRINGMATCH-TEST', () => {
  test("runs the matcher fuzz test with every other client held, then answers Redis's line", async () => {
    const t = await serverWith('yes');
    const a = await client(t);
    const b = await client(t);
    const order: string[] = [];
    const fuzz = ask(a, 'DEBUG', 'STRINGMATCH-TEST').then((r) => {
      order.push('fuzz');
      return r;
    });
    // Sent once the test holds the server: B's PING waits for it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const ping = ask(b, 'PING').then((r) => {
      order.push('ping');
      return r;
    });
    expect(await fuzz).toBe('+Apparently Redis did not crash: test passed\r\n');
    expect(await ping).toBe('+PONG\r\n');
    expect(order).toEqual(['fuzz', 'ping']);
  }, 60_000);
});
