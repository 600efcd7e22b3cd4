import { mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { FileCheckpointStore, sealMeta } from './checkpoint-store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hlog-checkpoint-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** An index of `bytes` bytes in parts, each byte a function of its position. */
function indexParts(bytes: number): Uint8Array[] {
  const whole = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) whole[i] = (i * 131 + (i >>> 12)) & 0xff;
  const cut = Math.floor(bytes / 3);
  return [whole.subarray(0, cut), whole.subarray(cut)];
}

async function written(bytes: number): Promise<{ store: FileCheckpointStore; whole: Buffer }> {
  const store = new FileCheckpointStore(dir);
  const parts = indexParts(bytes);
  const meta = await sealMeta(
    { version: 1, seq: 1, epoch: 1, begin: 0, until: 4096, pageSize: 4096, createdAt: 0 },
    parts,
  );
  await store.write(1, meta, parts);
  return { store, whole: Buffer.concat(parts) };
}

// The index is read in 4 MiB chunks, each summed while the next is read.
for (const bytes of [0, 1, 4 << 20, (4 << 20) + 1, (9 << 20) + 12345]) {
  test(`an index of ${bytes} bytes reads back whole, its checksum verified`, async () => {
    const { store, whole } = await written(bytes);
    const read = await store.read(1);
    expect(read).not.toBeNull();
    expect(Buffer.from(read!.index).equals(whole)).toBe(true);
    expect(read!.meta.indexBytes).toBe(bytes);
  });
}

test('an index with a byte changed in any chunk is no checkpoint', async () => {
  const bytes = (9 << 20) + 12345;
  for (const at of [0, (4 << 20) - 1, 4 << 20, bytes - 1]) {
    const { store, whole } = await written(bytes);
    const damaged = Buffer.from(whole);
    damaged[at] = damaged[at]! ^ 0x01;
    await writeFile(join(dir, 'checkpoint.1.index'), damaged);
    expect(await store.read(1), `byte ${at}`).toBeNull();
  }
});

test('an index cut short, or longer than its meta says, is no checkpoint', async () => {
  const { store } = await written((4 << 20) + 100);
  const file = join(dir, 'checkpoint.1.index');
  const whole = await readFile(file);
  await writeFile(file, Buffer.concat([whole, Buffer.from([0])]));
  expect(await store.read(1)).toBeNull();
  await truncate(file, whole.length - 1);
  expect(await store.read(1)).toBeNull();
  await rm(file);
  expect(await store.read(1)).toBeNull();
});
