import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { runCli, StrataProcess, tempDir } from '../test/strata-process.js';
import { listedSettings } from './config.js';
import { VERSION } from './version.js';

// strata-server as a process (built from the sources by test/global-setup.ts):
// what a user sees for --help, --version and configurations it refuses.

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir('strata-cli-');
});
afterEach(() => {
  StrataProcess.killAll();
});
afterAll(async () => {
  await tmp.remove();
});

test('--help lists every option with its default and exits 0', async () => {
  const r = await runCli(['--help']);
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  expect(r.stdout).toMatch(/^strata-server .* Redis-compatible server/);
  expect(r.stdout).toContain('Usage: strata-server [config-file] [options]');
  for (const s of listedSettings()) expect(r.stdout).toContain(`--${s.name} ${s.arg}`);
  for (const d of ['[6379]', '[127.0.0.1]', '[./data]', '[64mb]', '[16]', '[10000]', '[notice]']) {
    expect(r.stdout).toContain(d);
  }
  expect(r.stdout).toContain('1k = 1000, 1kb = 1024');
  expect((await runCli(['-h'])).stdout).toBe(r.stdout);
});

test('--version', async () => {
  const r = await runCli(['--version']);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe(`Strata server v=${VERSION} node=${process.version} bits=64\n`);
});

describe('refused configurations exit 1 before touching the data directory', () => {
  test.each([
    [
      ['--port', 'abc'],
      "Invalid argument '--port abc': argument couldn't be parsed into an integer",
    ],
    [['--port', '65536'], "Invalid argument '--port 65536': argument must be between 0 and 65535"],
    [['--memory', '64zb'], "Invalid argument '--memory 64zb': argument must be a memory value"],
    [['--log-level', 'loud'], 'argument(s) must be one of the following: debug, verbose'],
    [['--bogus', '1'], "Invalid argument '--bogus': unknown option"],
    [['--port'], "Invalid argument '--port': a value is required"],
    [['--memory', '1mb'], 'memory (1mb) must hold at least 2 pages of page-size 1mb'],
  ])('%j', async (args, message) => {
    const dir = join(tmp.path, 'never');
    const r = await runCli([...args, '--dir', dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`*** FATAL CONFIG ERROR (Strata ${VERSION}) ***`);
    expect(r.stderr).toContain(message);
    expect(existsSync(dir)).toBe(false);
  });

  test('a bad line in the config file: the line, its number and the reason', async () => {
    const conf = join(tmp.path, 'bad.conf');
    await writeFile(conf, '# Strata\nport 7000\n\n  page-size 3000  \nmemory 1mb\n');
    const r = await runCli([conf, '--dir', join(tmp.path, 'never')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      [
        `*** FATAL CONFIG FILE ERROR (Strata ${VERSION}) ***`,
        'Reading the configuration file, at line 4',
        ">>> 'page-size 3000'",
        'argument must be a power of two (512, ... 1mb, 2mb ...)',
        '',
      ].join('\n'),
    );
  });

  test('unbalanced quotes and unknown directives', async () => {
    const conf = join(tmp.path, 'quotes.conf');
    await writeFile(conf, 'requirepass "oops\n');
    const r = await runCli([conf]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("at line 1\n>>> 'requirepass \"oops'\nUnbalanced quotes");
    await writeFile(conf, 'port 7000\nlua-time-limits 5000\n');
    const r2 = await runCli([conf]);
    expect(r2.stderr).toContain("at line 2\n>>> 'lua-time-limits 5000'\nBad directive");
  });

  test('a config file that does not exist', async () => {
    const r = await runCli([join(tmp.path, 'missing.conf')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `Fatal error, can't open config file '${join(tmp.path, 'missing.conf')}': No such file or directory\n`,
    );
  });
});
