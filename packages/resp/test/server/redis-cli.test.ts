import { execFile, spawn, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from '../support/test-server.js';

const run = promisify(execFile);
const hasCli = spawnSync('redis-cli', ['--version']).status === 0;
if (!hasCli)
  console.warn('redis-cli is not installed (Debian: redis-tools): skipping the redis-cli tests');

describe.skipIf(!hasCli)('redis-cli', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(async () => {
    await t.stop();
  });

  const cli = async (...args: string[]) =>
    (await run('redis-cli', ['-p', String(t.port), ...args])).stdout;

  test('commands and replies', async () => {
    expect(await cli('PING')).toBe('PONG\n');
    expect(await cli('SET', 'k', 'hello world')).toBe('OK\n');
    expect(await cli('GET', 'k')).toBe('hello world\n');
    expect(await cli('INCRBY', 'n', '5')).toBe('5\n');
    expect(await cli('GET', 'missing')).toBe('\n');
    expect(await cli('--no-raw', 'GET', 'missing')).toBe('(nil)\n');
    expect(await cli('--no-raw', 'MGET', 'k', 'missing')).toBe('1) "hello world"\n2) (nil)\n');
    expect(await cli('NOPE', 'a')).toBe(
      "ERR unknown command 'NOPE', with args beginning with: 'a' \n\n",
    );
  });

  test('RESP3 (-3)', async () => {
    expect(await cli('-3', '--no-raw', 'HELLO', '3')).toContain('"proto" => (integer) 3');
    expect(await cli('-3', '--no-raw', 'GET', 'missing')).toBe('(nil)\n');
  });

  test('monitor: every command of the other clients, in Redis line format', async () => {
    // Async: the server runs in this process, a sync spawn would block it.
    const child = spawn('redis-cli', ['-p', String(t.port), 'monitor']);
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('latin1');
    });
    const waitFor = async (pred: () => boolean) => {
      for (let i = 0; i < 250 && !pred(); i++) await new Promise((r) => setTimeout(r, 20));
    };
    try {
      await waitFor(() => out.startsWith('OK\n'));
      await cli('SET', 'mon:k', 'a "quoted"\nvalue');
      await cli('AUTH', 'secret');
      await cli('EVAL', "return redis.call('get', KEYS[1])", '1', 'mon:k');
      await waitFor(() => out.includes('"get" "mon:k"'));
      const lines = out.split('\n').filter((l) => l !== '' && !/"(command|COMMAND)"/.test(l));
      expect(lines[0]).toBe('OK');
      const line = /^\d+\.\d{6} \[0 (127\.0\.0\.1:\d+|lua)\] (.*)$/;
      expect(lines.slice(1).map((l) => line.exec(l)?.[2])).toEqual([
        '"SET" "mon:k" "a \\"quoted\\"\\nvalue"',
        '"AUTH" "(redacted)"',
        '"EVAL" "return redis.call(\'get\', KEYS[1])" "1" "mon:k"',
        '"get" "mon:k"',
      ]);
      expect(lines.at(-1)).toMatch(/\[0 lua\]/);
    } finally {
      child.kill();
    }
  });

  test('a pipe of commands (--pipe) with keys going to disk', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) lines.push(`SET pipe:${i} value-${i}`);
    // Async: the server runs in this process, a sync spawn would block it.
    const child = spawn('redis-cli', ['-p', String(t.port), '--pipe']);
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stdin.end(`${lines.join('\r\n')}\r\n`);
    await new Promise((resolve) => child.on('close', resolve));
    expect(out).toContain('errors: 0, replies: 3000');
    expect(await cli('GET', 'pipe:0')).toBe('value-0\n');
    expect(await cli('GET', 'pipe:2999')).toBe('value-2999\n');
  });
});
