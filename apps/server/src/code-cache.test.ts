import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { build } from 'tsup';
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from 'vitest';
import { type CodeCacheOutcome, codeCacheDir, codeCacheFile } from './code-cache.js';

let dir: string;
let cacheDir: string;
let bundle: string;

/**
 * Each run is a process of its own, as a start of strata-server is: within
 * one process V8 keeps what it compiled, and would not even look at a cache.
 */
let runner: string;
let built: string;
beforeAll(async () => {
  built = await mkdtemp(join(tmpdir(), 'strata-code-cache-runner-'));
  await build({
    entry: { 'code-cache': join(import.meta.dirname, 'code-cache.ts') },
    outDir: built,
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    config: false,
    silent: true,
  });
  runner = join(built, 'run.mjs');
  await writeFile(
    runner,
    `import { runWithCodeCache } from './code-cache.js';
const [bundle, cacheDir] = process.argv.slice(2);
const run = runWithCodeCache(bundle, cacheDir === '' ? null : cacheDir);
const saved = run.saveCache();
console.log(JSON.stringify({ outcome: run.outcome, exports: run.exports, saved: saved === null ? null : saved.message }));
`,
  );
});
afterAll(async () => {
  await rm(built, { recursive: true, force: true });
});

interface Run {
  outcome: CodeCacheOutcome;
  exports: unknown;
  /** saveCache's error message, or null. */
  saved: string | null;
}

/** Runs `bundle` with the cache in `cache` (null: none) in a new process; the cache saved after. */
function runWithCodeCache(bundlePath: string, cache: string | null): Run {
  const r = spawnSync(process.execPath, [runner, bundlePath, cache ?? ''], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as Run;
}

/** A CommonJS bundle that uses `require`, `module` and `__dirname`, and has functions to cache. */
function source(answer: number): string {
  return `const { join } = require('node:path');
function square(x) { return x * x; }
module.exports = { answer: square(${answer}), here: join(__dirname, 'x') };
`;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-code-cache-'));
  cacheDir = join(dir, 'cache');
  bundle = join(dir, 'bundle.cjs');
  await writeFile(bundle, source(7));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('the first run compiles and writes the cache; the next uses it and writes nothing', async () => {
  const first = runWithCodeCache(bundle, cacheDir);
  expect(first.exports).toEqual({ answer: 49, here: join(dir, 'x') });
  expect(first.outcome).toMatchObject({ kind: 'compiled', why: 'none' });
  expect(first.saved).toBeNull();
  const file = codeCacheFile(cacheDir, bundle, source(7));
  const written = await stat(file);

  const second = runWithCodeCache(bundle, cacheDir);
  expect(second.outcome).toEqual({ kind: 'used', file });
  expect(second.exports).toEqual({ answer: 49, here: join(dir, 'x') });
  expect(second.saved).toBeNull();
  expect((await stat(file)).mtimeMs).toBe(written.mtimeMs);
});

test('a damaged cache file is compiled past, and written again whole', async () => {
  runWithCodeCache(bundle, cacheDir);
  const file = codeCacheFile(cacheDir, bundle, source(7));
  const bytes = await readFile(file);
  bytes[bytes.length - 10]! ^= 0xff;
  await writeFile(file, bytes);
  const damaged = runWithCodeCache(bundle, cacheDir);
  expect(damaged.outcome).toMatchObject({ kind: 'compiled', why: 'damaged' });
  expect(damaged.exports).toMatchObject({ answer: 49 });
  expect(runWithCodeCache(bundle, cacheDir).outcome.kind).toBe('used');

  // Cut short: damaged as well.
  await writeFile(file, (await readFile(file)).subarray(0, 100));
  expect(runWithCodeCache(bundle, cacheDir).outcome).toMatchObject({ why: 'damaged' });
});

test('a cache V8 refuses (whole, but not V8 code data) is compiled past', async () => {
  runWithCodeCache(bundle, cacheDir);
  const file = codeCacheFile(cacheDir, bundle, source(7));
  // A file with a valid checksum around bytes that are no code cache.
  const payload = Buffer.alloc(4096, 0x5a);
  const header = Buffer.alloc(16);
  header.write('STRATAV8');
  header.writeUInt32LE(crc32(payload), 8);
  header.writeUInt32LE(payload.length, 12);
  await writeFile(file, Buffer.concat([header, payload]));
  const run = runWithCodeCache(bundle, cacheDir);
  expect(run.outcome).toMatchObject({ kind: 'compiled', why: 'rejected' });
  expect(run.exports).toMatchObject({ answer: 49 });
  // And replaced by one it takes.
  expect(runWithCodeCache(bundle, cacheDir).outcome.kind).toBe('used');
});

test('another build of the bundle (same length) has its own cache, and replaces the old one', async () => {
  runWithCodeCache(bundle, cacheDir);
  // V8 alone would take the old cache: its check is the source's length.
  await writeFile(bundle, source(8));
  const rebuilt = runWithCodeCache(bundle, cacheDir);
  expect(rebuilt.outcome).toMatchObject({ kind: 'compiled', why: 'none' });
  expect(rebuilt.exports).toMatchObject({ answer: 64 });
  expect(await readdir(cacheDir)).toEqual([
    codeCacheFile(cacheDir, bundle, source(8)).slice(cacheDir.length + 1),
  ]);
});

test('no cache directory: nothing read or written', () => {
  const run = runWithCodeCache(bundle, null);
  expect(run.outcome).toEqual({ kind: 'off' });
  expect(run.saved).toBeNull();
});

test('a cache directory that cannot be written: the run goes on, the error returned', async () => {
  // A file where the directory should be.
  await writeFile(cacheDir, 'not a directory');
  const run = runWithCodeCache(bundle, cacheDir);
  expect(run.exports).toMatchObject({ answer: 49 });
  expect(run.saved).toMatch(/EEXIST|ENOTDIR/);
});

test('where the cache goes: STRATA_CODE_CACHE, then the XDG cache, then ~/.cache', () => {
  expect(codeCacheDir({ STRATA_CODE_CACHE: 'off' })).toBeNull();
  expect(codeCacheDir({ STRATA_CODE_CACHE: '/var/cache/x', XDG_CACHE_HOME: '/c' })).toBe(
    '/var/cache/x',
  );
  expect(codeCacheDir({ XDG_CACHE_HOME: '/c' })).toBe('/c/strata');
  expect(codeCacheDir({})).toMatch(/[/\\]\.cache[/\\]strata$|strata-cache$/);
});
