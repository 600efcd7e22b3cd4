import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, test } from 'vitest';
import { type ShutdownMode, shutdownCommand } from '../../src/commands/index.js';
import { storeDatabases } from '../../src/server/keyspace.js';
import { RespServer } from '../../src/server/resp-server.js';
import { SMALL_STORE, startServer, type TestServer } from '../support/test-server.js';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});

async function io(port: number): Promise<Redis> {
  const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null });
  await r.connect();
  return r;
}

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });

describe('SHUTDOWN', () => {
  test('errors as Redis, and not inside MULTI', async () => {
    t = await startServer();
    const r = await io(t.port);
    await expect(r.call('SHUTDOWN', 'foo')).rejects.toThrow('ERR syntax error');
    await expect(r.call('SHUTDOWN', 'SAVE', 'NOSAVE')).rejects.toThrow('ERR syntax error');
    await r.call('MULTI');
    await expect(r.call('SHUTDOWN')).rejects.toThrow(
      'ERR Command not allowed inside a transaction',
    );
    await r.call('DISCARD');
    expect(await r.ping()).toBe('PONG');
    r.disconnect();
  });

  test('a bare server closes: replies before it are sent, then no new connections', async () => {
    t = await startServer();
    const r = await io(t.port);
    const other = await io(t.port);
    const p = r.pipeline();
    p.set('a', '1');
    p.get('a');
    p.call('SHUTDOWN', 'NOSAVE');
    const res = await p.exec();
    expect(res![0]).toEqual([null, 'OK']);
    expect(res![1]).toEqual([null, '1']);
    // No reply: the connection closed.
    expect(res![2]![0]).toBeInstanceOf(Error);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await refused(t.port)).toBe(true);
    expect(other.status).not.toBe('ready');
    r.disconnect();
    other.disconnect();
  });

  test('the app hook runs with the mode, after SAVE checkpointed', async () => {
    const modes: ShutdownMode[] = [];
    const saves: number[] = [];
    const dir = await mkdtemp(join(tmpdir(), 'strata-resp-'));
    const provider = storeDatabases({ dir, store: { ...SMALL_STORE, checkpointOnClose: false } });
    const save = provider.save!;
    provider.save = (i, s) => {
      saves.push(modes.length);
      return save.call(provider, i, s);
    };
    t = await startServer({
      databases: provider,
      commands: [shutdownCommand((m) => void modes.push(m))],
    });
    const stop = t.stop;
    t.stop = async () => {
      await stop();
      await rm(dir, { recursive: true, force: true });
    };
    for (const args of [['SAVE'], ['nosave'], []]) {
      const r = await io(t.port);
      await r.set('k', 'v');
      await expect(r.call('SHUTDOWN', ...args)).rejects.toThrow();
      r.disconnect();
    }
    expect(modes).toEqual(['save', 'nosave', 'default']);
    // Database 0 checkpointed before the hook of SHUTDOWN SAVE only.
    expect(saves).toEqual([0]);
    // The hook decides: this one leaves the server running.
    const r = await io(t.port);
    expect(await r.get('k')).toBe('v');
    expect(Number(await r.call('LASTSAVE'))).toBeGreaterThan(0);
    r.disconnect();
  });

  test('SHUTDOWN SAVE closes a bare server; a restart finds every key, on disk or not', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'strata-resp-'));
    const options = { databases: { dir, store: { ...SMALL_STORE, checkpointOnClose: false } } };
    try {
      const s1 = new RespServer(options);
      const { port } = await s1.listen(0);
      const r = await io(port);
      const p = r.pipeline();
      for (let i = 0; i < 2000; i++) p.set(`k:${i}`, `v${i}`);
      await p.exec();
      await r.setbit('bits', 77, 1);
      await expect(r.call('SHUTDOWN', 'SAVE')).rejects.toThrow();
      r.disconnect();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await refused(port)).toBe(true);
      await s1.close();

      const s2 = new RespServer(options);
      const a = await s2.listen(0);
      const r2 = await io(a.port);
      const keys = Array.from({ length: 2000 }, (_, i) => `k:${i}`);
      expect(await r2.mget(...keys)).toEqual(keys.map((_, i) => `v${i}`));
      expect(await r2.getbit('bits', 77)).toBe(1);
      r2.disconnect();
      await s2.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
