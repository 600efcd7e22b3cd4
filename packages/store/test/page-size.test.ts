import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RespServer } from '@strata/resp';
import { afterEach, describe, expect, it } from 'vitest';
import { open } from '../src/index.js';

/**
 * The store's default page size (64 KiB) is not strata-server's (1 MiB): a
 * directory is reopened with the size it was written with (its checkpoints
 * say), and a size given that differs is refused with a coded error naming
 * both, never misread.
 */

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'strata-page-size-'));
  dirs.push(d);
  return d;
}

/** Writes `k` = `v` in db 0 of `dir` with strata-server's databases and their defaults (1 MiB pages). */
async function writtenByServer(dir: string): Promise<void> {
  const server = new RespServer({ databases: { dir } });
  await server.start();
  const client = server.local();
  await client.send([Buffer.from('SET'), Buffer.from('k'), Buffer.from('v')]);
  client.close();
  await server.close();
}

describe('page size of an existing directory', () => {
  it("opens a directory strata-server's databases wrote (1 MiB pages) with the defaults", async () => {
    const dir = await tempDir();
    await writtenByServer(dir);
    const db = await open(dir);
    expect(await db.get('k')).toBe('v');
    await db.set('k2', 'v2');
    await db.close();
    // ...and it is still a 1 MiB log: the server's defaults open it again.
    const server = new RespServer({ databases: { dir } });
    await server.start();
    const client = server.local();
    const reply = await client.send([Buffer.from('GET'), Buffer.from('k2')]);
    expect(reply.toString()).toBe('$2\r\nv2\r\n');
    client.close();
    await server.close();
  });

  it('refuses a larger page size than the directory was written with, naming both', async () => {
    const dir = await tempDir();
    const db = await open(dir); // 64 KiB
    await db.set('k', 'v');
    await db.close();
    await expect(open(dir, { pageSize: 1 << 20 })).rejects.toMatchObject({
      code: 'ERR_PAGE_SIZE_MISMATCH',
      message: 'the log was written with pageSize 65536, not 1048576',
    });
    // The refusal released the directory: it opens with its own size.
    const again = await open(dir);
    expect(await again.get('k')).toBe('v');
    await again.close();
  });

  it('refuses a smaller page size than the directory was written with, naming both', async () => {
    const dir = await tempDir();
    await writtenByServer(dir);
    await expect(open(dir, { pageSize: 1 << 16 })).rejects.toMatchObject({
      code: 'ERR_PAGE_SIZE_MISMATCH',
      message: 'the log was written with pageSize 1048576, not 65536',
    });
    const again = await open(dir, { pageSize: 1 << 20 });
    expect(await again.get('k')).toBe('v');
    await again.close();
  });
});
