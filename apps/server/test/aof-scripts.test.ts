import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, expect, test } from 'vitest';
import { client } from './crash-writer.js';
import { StrataProcess, tempDir } from './strata-process.js';

/**
 * Scripts reach the append-only file as their effects (Redis 7's effects
 * replication): the writes they made, inside MULTI .. EXEC, never the
 * script. After SIGKILL, replay gives what the scripts wrote, the random
 * choices and the time they saw included; a script that failed half way
 * keeps its writes before the failure, as in Redis, and nothing after.
 */
const dirs: { remove(): Promise<void> }[] = [];
afterEach(() => StrataProcess.killAll());
afterAll(async () => {
  for (const d of dirs) await d.remove();
});

async function aofText(dir: string): Promise<string> {
  const out: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      if (e.isDirectory()) await walk(join(d, e.name));
      else if (e.name.includes('.aof'))
        out.push((await readFile(join(d, e.name))).toString('latin1'));
    }
  };
  await walk(dir);
  return out.join('');
}

test('after SIGKILL, replay applies the effects scripts had, and runs no script', async () => {
  const dir = await tempDir('strata-aof-scripts-');
  dirs.push(dir);
  const args = [
    ...['--port', '0', '--dir', dir.path, '--appendonly', 'yes', '--appendfsync', 'always'],
    ...['--checkpoint-interval', '0'],
  ];
  const first = await StrataProcess.start(args);
  const r = client(first.port);
  await r.connect();
  // A choice replay could not repeat: the time and a random member, written by the script.
  await r.sadd('pool', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h');
  const picked = (await r.eval(
    `local m = redis.call('SPOP', KEYS[1])
     local t = redis.call('TIME')
     redis.call('SET', KEYS[2], m .. ':' .. t[1])
     redis.call('INCRBY', KEYS[3], 5)
     return m`,
    3,
    'pool',
    'choice',
    'n',
  )) as string;
  const choice = await r.get('choice');
  await expect(
    r.eval(
      "redis.call('INCRBY', KEYS[1], 1) redis.call('INCR', KEYS[2]) redis.call('INCRBY', KEYS[1], 100)",
      2,
      'n',
      'pool',
    ),
  ).rejects.toThrow(/WRONGTYPE/);
  expect(await r.get('n')).toBe('6');
  const sha = (await r.script('LOAD', "return redis.call('LPUSH', KEYS[1], ARGV[1])")) as string;
  expect(await r.evalsha(sha, 1, 'list', 'x')).toBe(1);
  r.disconnect();
  first.process.child.kill('SIGKILL');
  await first.process.exited;

  const aof = await aofText(dir.path);
  expect(aof).not.toMatch(/EVAL/i);
  expect(aof).toContain('MULTI');

  const again = await StrataProcess.start(args);
  const c = client(again.port);
  await c.connect();
  try {
    expect(await c.get('choice')).toBe(choice);
    expect(await c.sismember('pool', picked)).toBe(0);
    expect(await c.scard('pool')).toBe(7);
    expect(await c.get('n')).toBe('6');
    expect(await c.lrange('list', 0, -1)).toEqual(['x']);
    // Scripts are not persisted (Redis's script cache is not either).
    expect(await c.script('EXISTS', sha)).toEqual([0]);
  } finally {
    c.disconnect();
  }
});

test('function libraries survive SIGKILL with no AOF (saved before the OK), and stay out of the AOF', async () => {
  const dir = await tempDir('strata-functions-');
  dirs.push(dir);
  const plain = ['--port', '0', '--dir', dir.path, '--checkpoint-interval', '0'];
  const first = await StrataProcess.start(plain);
  const r = client(first.port);
  await r.connect();
  const lib = (name: string, fn: string) =>
    `#!lua name=${name}\nredis.register_function('${fn}', function(keys, args) return redis.call('INCRBY', keys[1], args[1]) end)`;
  expect(await r.function('LOAD', lib('keep', 'add'))).toBe('keep');
  expect(await r.function('LOAD', lib('gone', 'sub'))).toBe('gone');
  expect(await r.function('DELETE', 'gone')).toBe('OK');
  expect(await r.fcall('add', 1, 'n', 2)).toBe(2);
  r.disconnect();
  first.process.child.kill('SIGKILL');
  await first.process.exited;

  const withAof = [...plain, '--appendonly', 'yes', '--appendfsync', 'always'];
  const second = await StrataProcess.start(withAof);
  const c = client(second.port);
  await c.connect();
  try {
    expect(await c.fcall('add', 1, 'm', 5)).toBe(5);
    await expect(c.fcall('sub', 1, 'm', 1)).rejects.toThrow('ERR Function not found');
    expect(await c.function('LOAD', lib('more', 'more'))).toBe('more');
    expect(await c.fcall('more', 1, 'm', 1)).toBe(6);
  } finally {
    c.disconnect();
  }
  second.process.child.kill('SIGKILL');
  await second.process.exited;
  const aof = await aofText(dir.path);
  expect(aof).not.toMatch(/FUNCTION|FCALL/i);
  expect(aof).toContain('INCRBY');

  const third = await StrataProcess.start(withAof);
  const d = client(third.port);
  await d.connect();
  try {
    expect(await d.get('m')).toBe('6');
    expect(await d.fcall('more', 1, 'm', 1)).toBe(7);
    expect(((await d.function('LIST')) as unknown[]).length).toBe(2);
  } finally {
    d.disconnect();
  }
});
