import { afterAll, afterEach, expect, test } from 'vitest';
import { client } from './crash-writer.js';
import { StrataProcess, tempDir } from './strata-process.js';

/**
 * AOF replay runs each command at the time it ran live (the `#MS:` stamps):
 * a key that was alive then is alive at replay even if its TTL has passed
 * since, and one that had expired is missing. Replayed at the real time, a
 * SET .. PXAT already past made a later INCR create the key anew (a value
 * and no TTL the writer never had), and a PEXPIREAT already past deleted a
 * key that a PERSIST then kept alive.
 */

const dirs: { remove(): Promise<void> }[] = [];
afterEach(() => StrataProcess.killAll());
afterAll(async () => {
  for (const d of dirs) await d.remove();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('after SIGKILL, replay gives every key the value and TTL it had live, whatever expired since', async () => {
  const dir = await tempDir('strata-aof-expiry-');
  dirs.push(dir);
  // No periodic checkpoint: recovery is the empty checkpoint taken at the first start plus the whole AOF.
  const args = [
    ...['--port', '0', '--dir', dir.path, '--appendonly', 'yes', '--appendfsync', 'always'],
    ...['--checkpoint-interval', '0'],
  ];
  const first = await StrataProcess.start(args);
  const r = client(first.port);
  await r.connect();
  // Long enough that the live commands below (each fsynced) finish before it even on a loaded CI machine.
  const TTL = 2_500;
  const started = Date.now();
  await r.set('k', '5', 'PX', TTL);
  await r.set('p', 'v');
  await r.pexpire('p', TTL);
  await r.hset('h', 'f', '1');
  await r.pexpire('h', TTL);
  await r.set('m', '5', 'PX', TTL);
  await r.set('e', '5', 'PX', 50);
  await r.set('f', '1', 'PX', 60_000);
  await sleep(100);
  // Alive: INCR keeps the TTL; PERSIST keeps the key for good.
  expect(await r.incr('k')).toBe(6);
  expect(await r.persist('p')).toBe(1);
  expect(await r.hincrby('h', 'f', 1)).toBe(2);
  expect(await r.persist('h')).toBe(1);
  expect(await r.multi().incr('m').incr('m').exec()).toEqual([
    [null, 6],
    [null, 7],
  ]);
  expect(await r.incr('f')).toBe(2);
  // Expired live: INCR starts from nothing, with no TTL.
  expect(await r.incr('e')).toBe(1);
  expect(Date.now() - started).toBeLessThan(TTL); // the live commands ran before k, m expired
  r.disconnect();
  first.process.child.kill('SIGKILL');
  await first.process.exited;
  await sleep(Math.max(0, started + TTL + 100 - Date.now()));

  const again = await StrataProcess.start(args);
  const c = client(again.port);
  await c.connect();
  try {
    // k and m expired after their INCRs, with the TTL they kept: gone, not "1" without a TTL.
    expect(await c.get('k')).toBeNull();
    expect(await c.get('m')).toBeNull();
    // p and h were persisted before their TTL: there, with no TTL.
    expect(await c.get('p')).toBe('v');
    expect(await c.pttl('p')).toBe(-1);
    expect(await c.hget('h', 'f')).toBe('2');
    expect(await c.pttl('h')).toBe(-1);
    expect(await c.get('e')).toBe('1');
    expect(await c.pttl('e')).toBe(-1);
    expect(await c.get('f')).toBe('2');
    const fTtl = await c.pttl('f');
    expect(fTtl).toBeGreaterThan(50_000);
    expect(fTtl).toBeLessThanOrEqual(60_000);
    expect(await c.dbsize()).toBe(4); // p, h, e, f
  } finally {
    c.disconnect();
  }
  expect(again.process.stdout).not.toMatch(/AOF replay: .* failed/);
  expect((await again.process.stop('SIGTERM')).code).toBe(0);
}, 60_000);
