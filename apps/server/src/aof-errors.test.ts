import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AofFileSystem, type FsyncPolicy, nodeFileSystem } from '@strata/aof';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startInProcess } from '../test/in-process-server.js';
import { outcome, until } from '../test/reply-outcome.js';
import { Logger } from './logger.js';
import type { StrataServer } from './strata-server.js';

function osError(code: string, text: string, syscall: string): NodeJS.ErrnoException {
  const e: NodeJS.ErrnoException = new Error(`${code}: ${text}, ${syscall}`);
  e.code = code;
  e.syscall = syscall;
  return e;
}

/**
 * The real file system under the AOF, whose writes fail with ENOSPC while
 * `full` is set and whose fsyncs fail with EIO while `syncFails` is set.
 */
class FailingDisk implements AofFileSystem {
  full = false;
  syncFails = false;
  /** Only the manifest cannot be replaced: checkpoints fail (they rotate the AOF first), appends work. */
  manifestFails = false;
  async open(path: string, create: 'new' | 'never') {
    const h = await nodeFileSystem.open(path, create);
    return {
      ...h,
      write: (data: Uint8Array, position: number) => {
        if (this.full) throw osError('ENOSPC', 'no space left on device', 'write');
        return h.write(data, position);
      },
      datasync: () =>
        this.syncFails ? Promise.reject(osError('EIO', 'i/o error', 'fdatasync')) : h.datasync(),
    };
  }
  readFile = nodeFileSystem.readFile;
  writeFileAtomic = (path: string, data: Uint8Array) =>
    this.full || this.manifestFails
      ? Promise.reject(osError('ENOSPC', 'no space left on device', 'write'))
      : nodeFileSystem.writeFileAtomic(path, data);
  list = nodeFileSystem.list;
  remove = nodeFileSystem.remove;
  mkdirp = nodeFileSystem.mkdirp;
  syncDir = nodeFileSystem.syncDir;
}

let dir: string;
let server: StrataServer | null = null;
let lines: string[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-aof-errors-'));
  lines = [];
});
afterEach(async () => {
  await server?.shutdown();
  server = null;
  await rm(dir, { recursive: true, force: true });
});

async function start(
  disk: FailingDisk,
  appendfsync: FsyncPolicy,
  level: 'notice' | 'verbose' = 'notice',
): Promise<Redis> {
  let port: number;
  ({ server, port } = await startInProcess(
    dir,
    { appendonly: true, appendfsync },
    { logger: new Logger({ level, write: (l) => void lines.push(l) }), aofFileSystem: disk },
  ));
  return new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0, retryStrategy: () => null });
}

/**
 * The rule the README gives a client: MISCONF means not applied (retry it
 * later), NOTPERSISTED means applied (never retry it). Retries until the
 * command is answered something else than MISCONF.
 */
async function incrByTheRule(r: Redis, key: string): Promise<unknown> {
  for (;;) {
    const o = await outcome(r.incr(key));
    if (o !== '-MISCONF') return o;
    await new Promise((res) => setTimeout(res, 20));
  }
}

const count = (pattern: RegExp) => lines.filter((l) => pattern.test(l)).length;

describe('strata-server with a failing AOF disk', () => {
  test('always: the write that ran says NOTPERSISTED, later writes are refused before they run (MISCONF), writes come back by themselves', async () => {
    const disk = new FailingDisk();
    const r = await start(disk, 'always');
    try {
      expect(await r.set('a', '1')).toBe('OK');
      expect(await r.incr('n')).toBe(1);
      disk.full = true;
      // It ran before its append failed: applied, said so, not MISCONF.
      await expect(r.incr('n')).rejects.toThrow(
        /^NOTPERSISTED The command was applied in memory but could not be written to the AOF file: No space left on device\. Do not retry it\./,
      );
      expect(await r.get('n')).toBe('2');
      // Refused before they run: not applied.
      await expect(r.incr('n')).rejects.toThrow(
        /^MISCONF Errors writing to the AOF file: No space left on device$/,
      );
      await expect(r.set('b', '2')).rejects.toThrow(/^MISCONF/);
      expect(await r.get('n')).toBe('2');
      expect(await r.get('b')).toBeNull();
      expect(await r.get('a')).toBe('1');
      expect(await r.info('persistence')).toMatch(/\r\naof_last_write_status:err\r\n/);
      // Logged once for the whole episode, with the file and the OS code.
      for (let i = 0; i < 20; i++) await outcome(r.set('c', String(i)));
      await new Promise((res) => setTimeout(res, 300)); // retries run every 100 ms meanwhile
      expect(count(/Error writing to the AOF file/)).toBe(1);
      expect(lines.join('')).toMatch(
        /# Error writing to the AOF file \S+appendonlydir\/appendonly\.aof\.1\.incr\.aof: No space left on device \(ENOSPC\)\./,
      );
      disk.full = false;
      // The retry writes what was pending; writes are accepted again, no restart.
      await until(async () => (await outcome(r.set('c', '3'))) === 'OK');
      expect(count(/AOF write error looks solved, Strata can write again/)).toBe(1);
      expect(await r.get('c')).toBe('3');
      expect(await r.info('persistence')).toMatch(/\r\naof_last_write_status:ok\r\n/);
      expect(await r.save()).toBe('OK');
      const info = await r.info('persistence');
      expect(info).toMatch(/\r\naof_last_cow_size:0\r\n/);
      expect(info).toMatch(/\r\nrdb_changes_since_last_save:0\r\n/);
      // A swap would mix two databases' AOF positions and checkpoints.
      await expect(r.swapdb(0, 1)).rejects.toThrow(
        'ERR SWAPDB is not supported while appendonly is yes',
      );
    } finally {
      r.disconnect();
    }
  });

  test.each<FsyncPolicy>(['always', 'everysec'])(
    '%s: a client that retries MISCONF and never NOTPERSISTED counts each INCR once, across a restart',
    async (policy) => {
      const disk = new FailingDisk();
      let r = await start(disk, policy);
      try {
        const answers: unknown[] = [await incrByTheRule(r, 'n')];
        disk.full = true;
        // The rule's client goes on: some increments meet the failure, it retries those refused.
        const waiting = [incrByTheRule(r, 'n'), incrByTheRule(r, 'n')];
        await until(() => lines.some((l) => l.includes('Error writing to the AOF file')));
        disk.full = false;
        answers.push(...(await Promise.all(waiting)), await incrByTheRule(r, 'n'));
        // Four increments, each counted once: OK or NOTPERSISTED, never MISCONF.
        expect(answers.every((a) => typeof a === 'number' || a === '-NOTPERSISTED')).toBe(true);
        expect(await r.get('n')).toBe('4');
        await until(async () => (await r.info('persistence')).includes('aof_last_write_status:ok'));
        r.disconnect();
        await server!.shutdown();
        server = null;
        r = await start(new FailingDisk(), policy);
        expect(await r.get('n')).toBe('4');
      } finally {
        r.disconnect();
      }
    },
  );

  test.each<FsyncPolicy>(['always', 'everysec'])(
    '%s: a failing fsync (EIO) refuses writes before they run, is logged once with the file, and clears by itself',
    async (policy) => {
      const disk = new FailingDisk();
      const r = await start(disk, policy);
      try {
        expect(await r.set('a', '1')).toBe('OK');
        disk.syncFails = true;
        if (policy === 'always') {
          // Its sync failed after it ran: applied, not durable.
          await expect(r.set('b', '1')).rejects.toThrow(/^NOTPERSISTED .*: Input\/output error\./);
          expect(await r.get('b')).toBe('1');
        } else {
          // Answered once written; the next background fsync fails.
          expect(await r.set('b', '1')).toBe('OK');
        }
        // Until the failure is seen, writes are answered as the policy says; then refused.
        let i = 0;
        await until(async () => (await outcome(r.set(`x${++i}`, '1'))) === '-MISCONF');
        await expect(r.incr('n')).rejects.toThrow(
          /^MISCONF Errors writing to the AOF file: Input\/output error$/,
        );
        expect(await r.get('n')).toBeNull();
        expect(await r.get(`x${i}`)).toBeNull();
        await new Promise((res) => setTimeout(res, 300));
        expect(count(/Error trying to fsync the AOF file/)).toBe(1);
        expect(lines.join('')).toMatch(
          /Error trying to fsync the AOF file \S+appendonly\.aof\.1\.incr\.aof: Input\/output error \(EIO\)\./,
        );
        disk.syncFails = false;
        await until(async () => (await outcome(r.incr('n'))) === 1);
        expect(count(/AOF write error looks solved/)).toBe(1);
      } finally {
        r.disconnect();
      }
    },
  );

  test("a failed checkpoint refuses writes before they run (stop-writes-on-bgsave-error, Redis's words), is retried every 5 seconds, logged once", async () => {
    const disk = new FailingDisk();
    const r = await start(disk, 'always', 'verbose');
    try {
      expect(await r.set('a', '1')).toBe('OK');
      expect(await r.info('persistence')).toMatch(/\r\nrdb_last_bgsave_status:ok\r\n/);
      disk.manifestFails = true;
      await expect(r.save()).rejects.toThrow();
      expect(await r.info('persistence')).toMatch(/\r\nrdb_last_bgsave_status:err\r\n/);
      const refused =
        "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error.";
      await expect(r.set('b', '1')).rejects.toThrow(refused);
      await expect(r.incr('n')).rejects.toThrow(refused);
      expect(await r.get('b')).toBeNull();
      expect(await r.get('n')).toBeNull();
      // The periodic checkpoints try again 5 seconds later (the save rule says 300): one warning.
      await until(() => lines.some((l) => /DB 0 checkpoint failed: .*\(again\)/.test(l)));
      expect(count(/# DB 0 checkpoint failed/)).toBe(1);
      // Redis's switch: off, writes go through while the checkpoints fail.
      expect(await r.config('SET', 'stop-writes-on-bgsave-error', 'no')).toBe('OK');
      expect(await r.set('b', '1')).toBe('OK');
      expect(await r.config('SET', 'stop-writes-on-bgsave-error', 'yes')).toBe('OK');
      await expect(r.set('b', '2')).rejects.toThrow(refused);
      disk.manifestFails = false;
      await until(async () => (await outcome(r.set('c', '1'))) === 'OK');
      expect(await r.info('persistence')).toMatch(/\r\nrdb_last_bgsave_status:ok\r\n/);
      expect(await r.get('b')).toBe('1');
    } finally {
      r.disconnect();
    }
  }, 30_000);
});
