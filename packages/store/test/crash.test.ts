import { describe, expect, it } from 'vitest';
import { open } from '../src/index.js';
import { killed, runUntil, tempDir } from './support/child-writer.js';

describe('a crash (kill -9) recovers one moment', () => {
  it('strings and collections come back from the same moment (the last checkpoint), never a mix', async () => {
    const dir = await tempDir();
    await killed(await runUntil('mixed', dir, 'ready'));
    const db = await open(dir, { memory: 64 << 10, pageSize: 16 << 10 });
    try {
      const n = Number(await db.command('LLEN', 'mylist'));
      expect(Number(await db.command('HLEN', 'myhash'))).toBe(n);
      // No older than the checkpoint after round 100.
      expect(n).toBeGreaterThanOrEqual(100);
      for (let i = 0; i < 300; i++) {
        expect(await db.get(`str${i}`), `str${i} with ${n} list entries`).toBe(
          i < n ? String(i) : undefined,
        );
      }
      if (n < 300) expect(await db.get('fill0')).toBeUndefined();
    } finally {
      await db.close();
    }
  }, 60_000);
});

describe('a crash (kill -9) after acknowledged writes', () => {
  it('with the default options, every acknowledged write is there after reopen', async () => {
    const dir = await tempDir();
    await killed(await runUntil('write', dir, 'acked'));
    const db = await open(dir);
    try {
      expect(await db.get('k')).toBe('v');
      expect(await db.hget('h', 'f')).toBe('1');
      expect(await db.get('n')).toBe('1');
      expect(await db.lrange('l', 0, -1)).toEqual(['a', 'b']);
      for (let i = 0; i < 50; i++) expect(await db.get(`c${i}`)).toBe(`v${i}`);
    } finally {
      await db.close();
    }
  }, 60_000);

  it("with sync: 'no' the same writes are not there (what the default prevents)", async () => {
    const dir = await tempDir();
    await killed(await runUntil('write-sync-no', dir, 'acked'));
    const db = await open(dir);
    try {
      expect(await db.get('k')).toBeUndefined();
      expect(await db.command('DBSIZE')).toBe(0);
    } finally {
      await db.close();
    }
  }, 60_000);

  it("with sync: 'everysec', a write is there once the next log commit ran", async () => {
    const dir = await tempDir();
    await killed(await runUntil('everysec', dir, 'synced'));
    const db = await open(dir);
    try {
      expect(await db.get('k')).toBe('v');
    } finally {
      await db.close();
    }
  }, 60_000);

  it('a checkpoint asked for during a transaction holds all of it', async () => {
    const dir = await tempDir();
    await killed(await runUntil('tx-checkpoint', dir, 'checkpointed'));
    const db = await open(dir, { memory: 64 << 10, pageSize: 16 << 10 });
    try {
      const fields = new Set<string | undefined>();
      for (let i = 0; i < 200; i++) fields.add(await db.hget(`h${i}`, 'f'));
      // All or nothing; with the fence the checkpoint waited for EXEC: all.
      expect({ n: await db.get('n'), fields: [...fields] }).toEqual({ n: '1', fields: ['1'] });
    } finally {
      await db.close();
    }
  }, 60_000);
});

describe('one process per directory', () => {
  it('an open in another process fails with ERR_LOCKED while this one holds it', async () => {
    const dir = await tempDir();
    const db = await open(dir);
    try {
      const p = await runUntil('lock', dir, 'ERR_LOCKED');
      await new Promise((resolve) => p.once('exit', resolve));
    } finally {
      await db.close();
    }
    // Released by close: the other process opens it now.
    await runUntil('lock', dir, 'opened');
  }, 60_000);
});
