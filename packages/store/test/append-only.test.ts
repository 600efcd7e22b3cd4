import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { open, StoreError } from '../src/index.js';
import { killed, runUntil, tempDir } from './support/child-writer.js';
import { recordingLogger } from './support/recording-logger.js';

/**
 * `appendOnly`: the databases with strata-server's append-only file, as
 * the server composes them (persistence/: the same Databases, replay and
 * command log). A kill -9 of a writer loses nothing it was told was
 * written; the next open finds the AOF by itself and replays it.
 */
describe('appendOnly', () => {
  it('kill -9 after acknowledged writes: the next open replays the AOF and every write is there', async () => {
    const dir = await tempDir('strata-aof-');
    await killed(await runUntil('aof-write', dir, 'acked'));
    expect(existsSync(join(dir, 'appendonlydir', 'appendonly.aof.manifest'))).toBe(true);
    // Without appendOnly the directory's AOF is not ignored silently: the open is refused.
    await expect(open(dir)).rejects.toMatchObject({
      code: 'ERR_INVALID_ARGUMENT',
      message: expect.stringContaining('holds an append-only file'),
    });
    const lines: string[] = [];
    const db = await open(dir, { appendOnly: true, logger: recordingLogger(lines) });
    try {
      const loaded = lines.find((l) => l.startsWith('DB loaded from append only file'));
      const applied = Number(/: (\d+) commands applied/.exec(loaded ?? '')?.[1]);
      expect(applied, lines.join('')).toBeGreaterThan(250);
      expect(await db.get('s0')).toBeUndefined();
      for (let i = 1; i < 200; i++) expect(await db.get(`s${i}`)).toBe(`v${i}`.repeat(30));
      expect(await db.hgetall('h')).toEqual(
        new Map([
          ['f', '1'],
          ['g', '2'],
        ]),
      );
      expect(await db.get('n')).toBe('1');
      expect(await db.lrange('l', 0, -1)).toEqual(['a', 'b']);
      const ttl = await db.ttl('ttl');
      expect(ttl).toBeGreaterThan(3_500_000);
      for (let i = 0; i < 50; i++) expect(await db.get(`c${i}`)).toBe(`v${i}`);
    } finally {
      await db.close();
    }
  }, 60_000);

  it('checkpoint() and close checkpoint and cut the AOF: the next open replays nothing', async () => {
    const dir = await tempDir('strata-aof-');
    const said: string[] = [];
    const db = await open(dir, { appendOnly: true, logger: recordingLogger(said) });
    await db.set('k', 'v');
    await db.checkpoint();
    expect(said.join('')).toMatch(/DB 0 saved on disk: checkpoint \d+/);
    expect(said.join('')).toMatch(/AOF cut after DB 0's checkpoint/);
    await db.rpush('l', 'x');
    await db.close();
    const lines: string[] = [];
    const again = await open(dir, { appendOnly: true, logger: recordingLogger(lines) });
    try {
      expect(lines.join('')).toMatch(/DB loaded from append only file: 0 commands applied/);
      expect(await again.get('k')).toBe('v');
      expect(await again.lrange('l', 0, -1)).toEqual(['x']);
    } finally {
      await again.close();
    }
  });

  it('appendOnly: false over a directory with an AOF ignores it (MOVE allowed), as strata-server with appendonly no', async () => {
    const dir = await tempDir('strata-aof-');
    const db = await open(dir, { appendOnly: true });
    await db.set('k', 'with the AOF');
    await db.close();
    const plain = await open(dir, { appendOnly: false });
    try {
      expect(await plain.get('k')).toBe('with the AOF');
      // Written only to the log: a later appendOnly: true open would not see
      // it (the README's "do not alternate"); here it shows the AOF is unused.
      await plain.set('k', 'without it');
      expect(await plain.get('k')).toBe('without it');
      await expect(plain.command('MOVE', 'k', '1')).resolves.toBe(1);
    } finally {
      await plain.close();
    }
  });

  it('refuses what would span two databases in the AOF (SWAPDB, MOVE), as strata-server does', async () => {
    const dir = await tempDir('strata-aof-');
    const db = await open(dir, { appendOnly: true });
    try {
      await db.set('k', 'v');
      await expect(db.command('SWAPDB', '0', '1')).rejects.toThrow(
        new StoreError('ERR_COMMAND', 'ERR SWAPDB is not supported while appendonly is yes'),
      );
      await expect(db.command('MOVE', 'k', '1')).rejects.toThrow(
        /ERR MOVE is not supported while appendonly is yes/,
      );
      expect(await db.get('k')).toBe('v');
    } finally {
      await db.close();
    }
  });
});
