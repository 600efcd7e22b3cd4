import { execFileSync } from 'node:child_process';
import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { outcome, until } from './reply-outcome.js';
import { StrataProcess, tempDir } from './strata-process.js';

/**
 * A full disk under the AOF, for real: `--dir` on a 16 MB tmpfs filled to
 * the last block by a filler file while the server runs. An error reply
 * must mean "not applied" (in memory, and after kill -9 and a restart), the
 * failure is logged once with the file, and writes resume by themselves
 * once the filler is deleted. Mounting needs root (CAP_SYS_ADMIN): without
 * it the file is skipped; aof-errors.test.ts covers the same rules on a
 * failing file system shim, and EIO from fsync, which tmpfs never gives.
 */
let mount: { path: string; remove(): Promise<void> } | null = null;
let mounted = false;

function tryMount(path: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', path], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  mount = await tempDir('strata-disk-full-');
  mounted = tryMount(mount.path);
});
afterEach(() => StrataProcess.killAll());
afterAll(async () => {
  if (mounted) execFileSync('umount', [mount!.path]);
  await mount?.remove();
});

/** Fills the file system of `dir` to its last block; returns the filler's path. */
function fill(dir: string): string {
  const path = `${dir}/filler`;
  const fd = openSync(path, 'a');
  try {
    for (const size of [1 << 16, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size, 0x66);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return path;
}

function client(port: number): Redis {
  return new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0, retryStrategy: () => null });
}

const VALUE = 'v'.repeat(1000);

/** What writing one key at a time until the disk refuses gave: keys by answer. */
interface Run {
  acked: string[];
  notPersisted: string[];
  refused: string[];
}

/** SETs `<prefix><i>` one at a time until a write is refused (MISCONF), then a few more. */
async function writeUntilRefused(r: Redis, prefix: string): Promise<Run> {
  const run: Run = { acked: [], notPersisted: [], refused: [] };
  for (let i = 0; run.refused.length < 5; i++) {
    if (i > 20_000) throw new Error('the disk never filled');
    const key = `${prefix}${i}`;
    const o = await outcome(r.set(key, VALUE));
    if (o === 'OK') {
      if (run.refused.length > 0) throw new Error(`${key} accepted after a refusal`);
      run.acked.push(key);
    } else if (o === '-NOTPERSISTED') run.notPersisted.push(key);
    else if (o === '-MISCONF') run.refused.push(key);
    else throw new Error(`${key}: ${String(o)}`);
  }
  return run;
}

async function present(r: Redis, keys: readonly string[]): Promise<boolean[]> {
  return keys.length === 0 ? [] : (await r.mget(...keys)).map((v) => v === VALUE);
}

const lineCount = (out: string, pattern: RegExp) =>
  out.split('\n').filter((l) => pattern.test(l)).length;

describe.each(['always', 'everysec'] as const)('appendfsync %s on a full disk', (policy) => {
  test('an error reply means not applied, in memory and after kill -9; logged once; writes resume without a restart', async (ctx) => {
    if (!mounted) ctx.skip();
    const dir = `${mount!.path}/${policy}`;
    const args = [
      '--port',
      '0',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      policy,
      '--index-size',
      '64kb',
      // The AOF's own failure path: no commit points, whose log flushes
      // would meet the full disk first (the log's write error refuses writes too).
      '--commit-interval',
      '0',
    ];
    let { process: p, port } = await StrataProcess.start(args);
    let r = client(port);
    try {
      expect(await r.incr('n')).toBe(1);
      let filler = fill(mount!.path);
      const first = await writeUntilRefused(r, 'a');
      // `always` answers the write whose append failed NOTPERSISTED (it ran);
      // `everysec` had answered it OK before the write(2) that failed.
      if (policy === 'always') expect(first.notPersisted).toHaveLength(1);
      else expect(first.notPersisted).toHaveLength(0);
      // Refused before they ran: none of them is in memory; nor is an INCR.
      expect(await outcome(r.incr('n'))).toBe('-MISCONF');
      expect(await r.get('n')).toBe('1');
      expect(await present(r, first.refused)).toEqual(first.refused.map(() => false));
      // NOTPERSISTED said "applied": it is.
      expect(await present(r, first.notPersisted)).toEqual(first.notPersisted.map(() => true));
      expect(await r.info('persistence')).toMatch(/\r\naof_last_write_status:err\r\n/);
      // One line for the whole episode (the retries go on meanwhile), naming the file and the OS code.
      await new Promise((res) => setTimeout(res, 500));
      expect(lineCount(p.stdout, /Error writing to the AOF file/)).toBe(1);
      expect(p.stdout).toContain(
        `Error writing to the AOF file ${dir}/appendonlydir/appendonly.aof.1.incr.aof: No space left on device (ENOSPC).`,
      );

      // kill -9 while the disk is full, then room again and a restart.
      r.disconnect();
      await p.stop('SIGKILL');
      unlinkSync(filler);
      ({ process: p, port } = await StrataProcess.start(args));
      r = client(port);
      expect(await r.get('n')).toBe('1');
      expect(await present(r, first.refused)).toEqual(first.refused.map(() => false));
      // Acknowledged: all kept with `always`; `everysec` may lose the last one
      // (answered before the write(2) that failed: its promise is "about a second").
      const kept = await present(r, first.acked);
      const mayLose = policy === 'always' ? 0 : 1;
      expect(kept.slice(0, kept.length - mayLose).every(Boolean)).toBe(true);

      // Full again, and room comes back while the server runs: no restart.
      filler = fill(mount!.path);
      const from = p.stdout.length;
      const second = await writeUntilRefused(r, 'b');
      unlinkSync(filler);
      await until(async () => (await outcome(r.set('after', VALUE))) === 'OK');
      const out = p.stdout.slice(from);
      expect(lineCount(out, /Error writing to the AOF file/)).toBe(1);
      expect(lineCount(out, /AOF write error looks solved, Strata can write again/)).toBe(1);
      expect(await r.incr('n')).toBe(2);
      expect(await r.info('persistence')).toMatch(/\r\naof_last_write_status:ok\r\n/);
      // What the retry wrote survives kill -9 now: the NOTPERSISTED write too, as its
      // reply said. (A process kill keeps what write(2) gave the kernel: no fsync wait.)
      r.disconnect();
      await p.stop('SIGKILL');
      ({ process: p, port } = await StrataProcess.start(args));
      r = client(port);
      expect(await r.get('n')).toBe('2');
      expect(await r.get('after')).toBe(VALUE);
      expect(await present(r, second.acked)).toEqual(second.acked.map(() => true));
      expect(await present(r, second.notPersisted)).toEqual(second.notPersisted.map(() => true));
      expect(await present(r, second.refused)).toEqual(second.refused.map(() => false));
    } finally {
      r.disconnect();
      await p.stop('SIGKILL');
    }
  }, 120_000);
});

describe('without the AOF on a full disk', () => {
  test('a write answered with an error is not applied, the log file is named once, writes resume when room returns', async (ctx) => {
    if (!mounted) ctx.skip();
    const dir = `${mount!.path}/no-aof`;
    // A small log memory: pages leave memory for the segment files as keys come.
    const args = [
      '--port',
      '0',
      '--dir',
      dir,
      '--memory',
      '256kb',
      '--page-size',
      '16kb',
      '--index-size',
      '64kb',
    ];
    let { process: p, port } = await StrataProcess.start(args);
    let r = client(port);
    try {
      const filler = fill(mount!.path);
      const acked: string[] = [];
      const failed: string[] = [];
      for (let i = 0; failed.length < 5; i++) {
        if (i > 20_000) throw new Error('the disk never filled');
        const o = await outcome(r.set(`k${i}`, VALUE));
        if (o === 'OK') acked.push(`k${i}`);
        else failed.push(`k${i}`);
      }
      // Whatever the error said, the write is not there.
      expect(await present(r, failed)).toEqual(failed.map(() => false));
      expect(await outcome(r.incr('n'))).toMatch(/^-(MISCONF|ERR)$/);
      expect(await r.get('n')).toBeNull();
      await new Promise((res) => setTimeout(res, 1500)); // a retry of the pages meanwhile
      expect(lineCount(p.stdout, /cannot write to its log file/)).toBe(1);
      expect(p.stdout).toContain(`DB 0: cannot write to its log file ${dir}/0/log.0 (ENOSPC)`);
      unlinkSync(filler);
      // The pages are written again every second: writes come back without a restart.
      await until(async () => (await outcome(r.set('after', VALUE))) === 'OK');
      await p.waitFor(/its log in .* can be written again/);
      expect(await r.incr('n')).toBe(1);
      expect(await present(r, acked)).toEqual(acked.map(() => true));
      r.disconnect();
      await p.stop('SIGKILL');
      ({ process: p, port } = await StrataProcess.start(args));
      r = client(port);
      expect(await present(r, failed)).toEqual(failed.map(() => false));
    } finally {
      r.disconnect();
      await p.stop('SIGKILL');
    }
  }, 120_000);
});
