import { Redis } from 'ioredis';
import { describe, expect, test } from 'vitest';
import { serverWithClient, startServer } from '../support/test-server.js';

/**
 * Scripts over real sockets (ioredis) on a server whose stores keep 64 KiB
 * of log in memory: keys a script reads come from disk, a long script makes
 * other clients wait and then get BUSY, SCRIPT KILL stops it unless it
 * wrote, and nothing of another client runs in the middle of a script.
 * Replies and errors word for word are the recorded compat cases'
 * (test/compat/scripting-compat-cases.ts).
 */
const setup = serverWithClient();
const r = (): Redis => setup.client;

async function other(): Promise<Redis> {
  const c = new Redis({ port: setup.server.port, host: '127.0.0.1', lazyConnect: true });
  await c.connect();
  return c;
}

describe('scripts', () => {
  test('keys on disk are read in the middle of a script, and the script stays atomic', async () => {
    for (let i = 0; i < 300; i++) await r().set(`s:disk:${i}`, `value-${i}`.repeat(20));
    await r().hset('s:hash', 'f', 'v');
    for (let i = 0; i < 300; i++) await r().set(`s:fill:${i}`, 'x'.repeat(500));
    const b = await other();
    try {
      await b.set('s:flag', 'before');
      // While the script waits for the disk, b's SET must wait for the script.
      const script = r().eval(
        `local out = {}
         redis.call('set', 's:flag', 'script')
         for i = 0, 299 do out[#out + 1] = redis.call('get', 's:disk:' .. i) end
         out[#out + 1] = redis.call('hget', 's:hash', 'f')
         out[#out + 1] = redis.call('get', 's:flag')
         return out`,
        0,
      ) as Promise<string[]>;
      const set = b.set('s:flag', 'other');
      const got = await script;
      await set;
      expect(got).toHaveLength(302);
      for (let i = 0; i < 300; i++) expect(got[i]).toBe(`value-${i}`.repeat(20));
      expect(got[300]).toBe('v');
      expect(got[301]).toBe('script');
      expect(await r().get('s:flag')).toBe('other');
    } finally {
      b.disconnect();
    }
  });

  test('a long script: others wait, then get BUSY; SCRIPT KILL stops it', async () => {
    await r().config('SET', 'busy-reply-threshold', '200');
    const b = await other();
    try {
      const looping = r()
        .eval('local i = 0 while true do i = i + 1 end', 0)
        .then(
          () => 'returned',
          (e: Error) => e.message,
        );
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Before the threshold b waits; once it passes, b's waiting PING is answered BUSY, as Redis answers it.
      const early = b.ping().then(
        (v) => v,
        (e: Error) => e.message,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await expect(b.get('s:x')).rejects.toThrow(
        'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.',
      );
      expect(await b.call('SCRIPT', 'KILL')).toBe('OK');
      expect(await looping).toMatch(
        /^ERR Script killed by user with SCRIPT KILL\.\.\. script: [0-9a-f]{40}, on @user_script:1\.$/,
      );
      expect(await early).toBe(
        'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.',
      );
      await expect(b.call('SCRIPT', 'KILL')).rejects.toThrow(
        'NOTBUSY No scripts in execution right now.',
      );
      expect(await r().ping()).toBe('PONG');
    } finally {
      b.disconnect();
    }
  });

  test('a script that wrote cannot be killed: UNKILLABLE, and it runs to its end', async () => {
    await r().config('SET', 'busy-reply-threshold', '100');
    const b = await other();
    try {
      // Long enough (seconds) that it is still running when SCRIPT KILL comes,
      // however fast the machine: a fixed sleep raced a short loop.
      const script = r().eval(
        `redis.call('set', KEYS[1], 'written')
         local n = 0
         for i = 1, 40000000 do n = n + 1 end
         return n`,
        1,
        's:unkillable',
      );
      // Past busy-reply-threshold other clients get BUSY: the script runs.
      let busy = false;
      for (let i = 0; i < 250 && !busy; i++) {
        busy = await b.ping().then(
          () => false,
          (e: Error) => /^BUSY/.test(e.message),
        );
        if (!busy) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(busy).toBe(true);
      await expect(b.call('SCRIPT', 'KILL')).rejects.toThrow(
        /^UNKILLABLE Sorry the script already executed write commands/,
      );
      expect(await script).toBe(40000000);
      expect(await b.get('s:unkillable')).toBe('written');
    } finally {
      b.disconnect();
      await r().config('SET', 'busy-reply-threshold', '5000');
    }
  });

  test('MULTI with EVAL inside runs it at EXEC, in order', async () => {
    await r().del('s:m');
    const replies = await r()
      .multi()
      .set('s:m', '1')
      .eval("return redis.call('incr', KEYS[1])", 1, 's:m')
      .get('s:m')
      .exec();
    expect(replies).toEqual([
      [null, 'OK'],
      [null, 2],
      [null, '2'],
    ]);
  });

  test('SELECT inside a script is the script’s own', async () => {
    await r().set('s:db0', 'zero');
    expect(
      await r().eval("redis.call('select', 1); return redis.call('get', KEYS[1])", 1, 's:db0'),
    ).toBeNull();
    expect(await r().get('s:db0')).toBe('zero');
  });
});

describe('a script that allocates without bound', () => {
  test('is stopped with an OOM error once it grows the heap past scriptMemory; the server stays up', async () => {
    const t = await startServer({ scriptMemory: 64 << 20 });
    const c = new Redis({ port: t.port, host: '127.0.0.1', lazyConnect: true });
    await c.connect();
    try {
      await expect(
        c.eval("local t = {} while true do t[#t + 1] = string.rep('x', 100000) .. #t end", 0),
      ).rejects.toThrow(
        /^OOM script used more memory than scripts may use \(67108864 bytes of heap and buffers, scriptMemory\) script: [0-9a-f]{40}, on @user_script:1\.$/,
      );
      expect(await c.eval('return 1', 0)).toBe(1);
      expect(await c.ping()).toBe('PONG');
    } finally {
      c.disconnect();
      await t.stop();
    }
  });
});

describe('while writes fail (MISCONF)', () => {
  const aof = 'MISCONF Errors writing to the AOF file: No space left on device';
  const blocked = "Writable scripts are blocked. Use 'no-writes' flag for read only scripts.";

  test('a flagged script that may write is refused before it runs, a no-writes one runs, an unflagged one fails at its write', async () => {
    await r().set('s:mis', 'before');
    setup.server.server.setWriteError('Errors writing to the AOF file: No space left on device');
    try {
      await expect(
        r().eval("#!lua\nreturn redis.call('get', KEYS[1])", 1, 's:mis'),
      ).rejects.toThrow(
        `MISCONF Redis is configured to persist data to AOF, but it's currently unable to persist to disk. ${blocked} AOF error: No space left on device`,
      );
      expect(
        await r().eval("#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", 1, 's:mis'),
      ).toBe('before');
      // Without a shebang the script runs, and Redis refuses its first write with the reason.
      await expect(
        r().eval("redis.call('get', KEYS[1]) return redis.call('set', KEYS[1], 'x')", 1, 's:mis'),
      ).rejects.toThrow(new RegExp(`^${aof} script: [0-9a-f]{40}, on @user_script:1\\.$`));
      await expect(r().eval("return redis.pcall('set', KEYS[1], 'x')", 1, 's:mis')).rejects.toThrow(
        new RegExp(`^${aof}$`),
      );
    } finally {
      setup.server.server.setWriteError(null);
    }
    expect(await r().get('s:mis')).toBe('before');
  });

  test('functions are flagged scripts: one without no-writes is refused; a store error keeps its own words', async () => {
    await r().call(
      'FUNCTION',
      'LOAD',
      'REPLACE',
      "#!lua name=mis\nredis.register_function('mis_w', function() return 1 end)\nredis.register_function{function_name='mis_r', callback=function() return 2 end, flags={'no-writes'}}",
    );
    setup.server.server.setWriteError('disk is gone');
    try {
      await expect(r().call('FCALL', 'mis_w', '0')).rejects.toThrow(
        `MISCONF disk is gone. ${blocked}`,
      );
      expect(await r().call('FCALL', 'mis_r', '0')).toBe(2);
      expect(await r().call('FCALL_RO', 'mis_r', '0')).toBe(2);
    } finally {
      setup.server.server.setWriteError(null);
    }
    expect(await r().call('FCALL', 'mis_w', '0')).toBe(1);
    expect(await r().eval('#!lua\nreturn 3', 0)).toBe(3);
  });
});
