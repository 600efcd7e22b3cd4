import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort, StrataProcess, tempDir, waitForPort } from './strata-process.js';

/**
 * redis-cli's own tools against strata-server, as an operator runs them:
 * --bigkeys and --memkeys (SCAN, TYPE, the length commands, MEMORY USAGE),
 * --stat (INFO every interval) and --latency (PING). --bigkeys' summary is
 * compared line for line with redis-server's on the same keys; --memkeys'
 * byte counts are each server's own, so only its shape and biggest keys
 * are. Skipped, and said so, where redis-cli is not installed; the
 * redis-server half is skipped where redis-server is not.
 */
const hasCli = spawnSync('redis-cli', ['--version']).status === 0;
const hasRedis = spawnSync('redis-server', ['--version']).status === 0;
if (!hasCli) console.warn('redis-cli-tools: redis-cli is not installed; these tests are skipped');
else if (!hasRedis) console.warn('redis-cli-tools: no redis-server; the comparisons are skipped');

let tmp: Awaited<ReturnType<typeof tempDir>>;
let strata: { process: StrataProcess; port: number };
let redis: { child: ChildProcess; port: number } | null = null;

/** The same keys on both servers: one clear biggest key of each type. */
async function fill(port: number): Promise<void> {
  const r = new Redis({ port, host: '127.0.0.1', lazyConnect: true });
  await r.connect();
  try {
    const p = r.pipeline();
    for (let i = 0; i < 40; i++) p.set(`str:${i}`, 'x'.repeat(i + 1));
    p.set('str:big', 'y'.repeat(5000));
    for (let i = 0; i < 5; i++) p.hset(`hash:${i}`, 'f', String(i));
    const fields: string[] = [];
    for (let i = 0; i < 300; i++) fields.push(`f${i}`, `v${i}`);
    p.hset('hash:big', ...fields);
    p.rpush('list:small', 'a', 'b');
    p.rpush('list:big', ...Array.from({ length: 200 }, (_, i) => `e${i}`));
    p.sadd('set:small', 'a');
    p.sadd('set:big', ...Array.from({ length: 150 }, (_, i) => `m${i}`));
    p.zadd('zset:small', 1, 'a');
    p.zadd('zset:big', ...Array.from({ length: 120 }, (_, i) => [i, `z${i}`]).flat());
    for (let i = 0; i < 30; i++) p.xadd('stream:big', '*', 'n', String(i));
    p.xadd('stream:small', '*', 'n', '1');
    await p.exec();
  } finally {
    r.disconnect();
  }
}

/** Runs redis-cli to its end; stdout. */
function cli(port: number, args: readonly string[]): string {
  const r = spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`redis-cli ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** The lines after redis-cli's "-------- summary -------" heading. */
function summary(out: string): string[] {
  const at = out.indexOf('-------- summary -------');
  expect(at, out).toBeGreaterThanOrEqual(0);
  return out
    .slice(at)
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l !== '');
}

beforeAll(async () => {
  if (!hasCli) return;
  tmp = await tempDir('strata-redis-cli-');
  strata = await StrataProcess.start(['--port', '0', '--dir', `${tmp.path}/strata`]);
  await fill(strata.port);
  if (hasRedis) {
    const port = await freePort();
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--save', '', '--appendonly', 'no', '--dir', tmp.path],
      { stdio: 'ignore' },
    );
    await waitForPort(port);
    redis = { child, port };
    await fill(port);
  }
}, 60_000);

afterAll(async () => {
  StrataProcess.killAll();
  redis?.child.kill('SIGKILL');
  await tmp?.remove();
});

describe.skipIf(!hasCli)('redis-cli tools against strata-server', () => {
  test('--bigkeys finds the biggest key of every type', () => {
    const lines = summary(cli(strata.port, ['--bigkeys']));
    expect(lines).toContain('Sampled 55 keys in the keyspace!');
    expect(lines).toContain(`Biggest string found '"str:big"' has 5000 bytes`);
    expect(lines).toContain(`Biggest   hash found '"hash:big"' has 300 fields`);
    expect(lines).toContain(`Biggest   list found '"list:big"' has 200 items`);
    expect(lines).toContain(`Biggest    set found '"set:big"' has 150 members`);
    expect(lines).toContain(`Biggest   zset found '"zset:big"' has 120 members`);
    expect(lines).toContain(`Biggest stream found '"stream:big"' has 30 entries`);
    expect(lines).toContain('6 hashs with 305 fields (10.91% of keys, avg size 50.83)');
  });

  test.skipIf(!hasRedis)('--bigkeys gives redis-server summary, line for line', () => {
    expect(summary(cli(strata.port, ['--bigkeys']))).toEqual(
      summary(cli(redis!.port, ['--bigkeys'])),
    );
  });

  test('--memkeys sizes every key with MEMORY USAGE', () => {
    const lines = summary(cli(strata.port, ['--memkeys']));
    expect(lines).toContain('Sampled 55 keys in the keyspace!');
    expect(lines.some((l) => l.startsWith(`Biggest string found '"str:big"' has `))).toBe(true);
    expect(lines.some((l) => l.startsWith(`Biggest   hash found '"hash:big"' has `))).toBe(true);
    for (const [type, n] of [
      ['lists', 2],
      ['hashs', 6],
      ['strings', 41],
      ['streams', 2],
      ['sets', 2],
      ['zsets', 2],
    ] as const) {
      const line = lines.find((l) => l.startsWith(`${n} ${type} with `));
      expect(line, `${type} in\n${lines.join('\n')}`).toBeDefined();
      // Real sizes: at least a byte per key.
      expect(Number(/with (\d+) bytes/.exec(line!)?.[1])).toBeGreaterThanOrEqual(n);
    }
    if (redis !== null) {
      // Same keys, same counts; only the byte counts are each server's.
      const shape = (ls: string[]) =>
        ls.map((l) => l.replace(/\d+(\.\d+)? ?bytes|avg size [\d.]+/g, '#'));
      const theirs = summary(cli(redis.port, ['--memkeys']));
      expect(shape(lines).filter((l) => !l.startsWith('Biggest'))).toEqual(
        shape(theirs).filter((l) => !l.startsWith('Biggest')),
      );
    }
  });

  test('--stat prints a row per interval with the key count', async () => {
    // stdbuf: redis-cli's stdout is a pipe here, fully buffered otherwise.
    const child = spawn(
      'stdbuf',
      ['-oL', 'redis-cli', '-p', String(strata.port), '--stat', '-i', '0.1'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
    });
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (out.split('\n').filter((l) => /^\d+\s/.test(l)).length >= 3) {
          clearInterval(timer);
          resolve();
        }
      }, 50);
      setTimeout(() => {
        clearInterval(timer);
        resolve();
      }, 10_000);
    });
    child.kill('SIGKILL');
    expect(out).toContain(
      '------- data ------ --------------------- load -------------------- - child -',
    );
    const rows = out.split('\n').filter((l) => /^\d+\s/.test(l));
    expect(rows.length, out).toBeGreaterThanOrEqual(3);
    // keys, mem, clients, blocked, requests (+delta), connections.
    const cols = rows[0]!.trim().split(/\s+/);
    expect(Number(cols[0])).toBe(55);
    expect(cols[1]).toMatch(/^[\d.]+[KMG]?$/);
    expect(Number(cols[2])).toBeGreaterThanOrEqual(1);
  }, 20_000);

  test('--latency measures PING round trips', () => {
    const out = cli(strata.port, ['--latency', '-i', '1']).trim();
    // Not a terminal: one line, "min max avg samples", after the interval.
    const [min, max, avg, samples] = out.split(/\s+/).map(Number);
    expect(samples, out).toBeGreaterThan(10);
    expect(min).toBeLessThanOrEqual(avg!);
    expect(avg).toBeLessThanOrEqual(max!);
  });
});
