import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { freePort, tempDir } from './strata-process.js';

/**
 * The published bin, `dist/cli.js` as `pnpm build` writes it: a loader that
 * runs the server bundle (`dist/strata-server.cjs`) with V8's code cache.
 * The other process tests run a build of the sources without the loader
 * (global-setup.ts), so this one needs `pnpm build` first (CI builds before
 * testing); without dist/ it is skipped, and says so.
 */
const bin = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const built = existsSync(bin);
if (!built) console.warn(`bin-code-cache.test.ts skipped: ${bin} is not built (pnpm build)`);

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir('strata-bin-');
});
afterAll(async () => {
  await tmp.remove();
});

/** PING over a fresh connection, retried until the server answers. */
async function ping(port: number): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const reply = await new Promise<string | null>((resolve) => {
      const s = connect(port, '127.0.0.1', () => s.write('*1\r\n$4\r\nPING\r\n'));
      s.once('data', (d) => {
        s.destroy();
        resolve(d.toString('latin1'));
      });
      s.once('error', () => resolve(null));
    });
    if (reply !== null) return reply;
    if (Date.now() > deadline) throw new Error('the server never answered');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function cacheFiles(dir: string): Promise<string[]> {
  return existsSync(dir) ? (await readdir(dir)).filter((n) => n.endsWith('.v8cache')) : [];
}

/** Starts the bin on `dir`, waits for PING (and for `until`), then stops it. */
async function serve(
  dir: string,
  env: NodeJS.ProcessEnv,
  until: () => Promise<boolean>,
): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [bin, '--port', String(port), '--dir', dir], {
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  try {
    const reply = await ping(port);
    const deadline = Date.now() + 20_000;
    while (!(await until())) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 20));
    }
    return reply;
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
  }
}

describe.runIf(built)('dist/cli.js', () => {
  test('the first start writes the code cache once it serves; the next start uses it', async () => {
    const cache = join(tmp.path, 'cache');
    expect(
      await serve(
        join(tmp.path, 'a'),
        { STRATA_CODE_CACHE: cache },
        async () => (await cacheFiles(cache)).length === 1,
      ),
    ).toBe('+PONG\r\n');
    const [file] = await cacheFiles(cache);
    expect(file).toMatch(/^strata-server\.cjs-[0-9a-f]{8}-v\d+\.\d+\.\d+-\w+\.v8cache$/);
    const before = await stat(join(cache, file!));
    expect(before.size).toBeGreaterThan(100_000);
    // Used: not written again (the start waits a moment past PING for a write that does not come).
    let waited = 0;
    expect(
      await serve(join(tmp.path, 'b'), { STRATA_CODE_CACHE: cache }, async () => ++waited > 10),
    ).toBe('+PONG\r\n');
    expect(await cacheFiles(cache)).toEqual([file]);
    expect((await stat(join(cache, file!))).mtimeMs).toBe(before.mtimeMs);
  });

  test('STRATA_CODE_CACHE=off: serves, writes no cache (not even where it would go)', async () => {
    const xdg = join(tmp.path, 'xdg');
    let waited = 0;
    const env = { STRATA_CODE_CACHE: 'off', XDG_CACHE_HOME: xdg };
    expect(await serve(join(tmp.path, 'c'), env, async () => ++waited > 10)).toBe('+PONG\r\n');
    expect(await cacheFiles(join(xdg, 'strata'))).toEqual([]);
  });

  test('with no STRATA_CODE_CACHE the cache goes to $XDG_CACHE_HOME/strata', async () => {
    const xdg = join(tmp.path, 'xdg2');
    const env = { STRATA_CODE_CACHE: '', XDG_CACHE_HOME: xdg };
    const written = async () => (await cacheFiles(join(xdg, 'strata'))).length === 1;
    expect(await serve(join(tmp.path, 'd'), env, written)).toBe('+PONG\r\n');
  });

  test("hlog's rebuild worker is built beside the bundle (its parallel rebuild starts it from there)", () => {
    expect(existsSync(join(bin, '..', 'rebuild-worker.js'))).toBe(true);
    expect(existsSync(join(bin, '..', 'strata-server.cjs'))).toBe(true);
  });
});
