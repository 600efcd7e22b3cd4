import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileCheckpointStore } from './checkpoint-store.js';
import {
  decodeRecord,
  encodeSlot,
  newRecord,
  RECORD_BYTES,
  SLOT_BYTES,
} from './clean-close-record.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hlog-clean-close-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the clean-close record', () => {
  it('reads the newer of two valid slots', () => {
    const b = Buffer.concat([encodeSlot(4, 4000), encodeSlot(5, 5000)]);
    expect(decodeRecord(b)).toEqual({ seq: 5, point: 5000 });
    const c = Buffer.concat([encodeSlot(6, 6000), encodeSlot(5, 5000)]);
    expect(decodeRecord(c)).toEqual({ seq: 6, point: 6000 });
  });

  it('a slot torn by a crash (any byte wrong) leaves the other one', () => {
    for (let at = 0; at < SLOT_BYTES - 8; at++) {
      const b = Buffer.concat([encodeSlot(6, 6000), encodeSlot(5, 5000)]);
      b[at] = b[at]! ^ 0x10;
      expect(decodeRecord(b), `byte ${at}`).toEqual({ seq: 5, point: 5000 });
    }
    expect(decodeRecord(Buffer.alloc(RECORD_BYTES))).toBeNull();
  });

  it("reads an older store's decimal text", () => {
    expect(decodeRecord(Buffer.from('123456\n'))).toEqual({ seq: 0, point: 123456 });
    expect(decodeRecord(Buffer.from('12x'))).toBeNull();
    expect(decodeRecord(newRecord(77))).toEqual({ seq: 1, point: 77 });
  });
});

describe('FileCheckpointStore clean close', () => {
  it('each write after the first changes one slot in place: the file is never replaced', async () => {
    const store = new FileCheckpointStore(dir);
    const path = join(dir, 'clean-close');
    await store.writeCleanClose(100);
    const ino = (await stat(path)).ino;
    for (let i = 1; i <= 5; i++) {
      await store.writeCleanClose(100 + i);
      expect(await new FileCheckpointStore(dir).readCleanClose()).toBe(100 + i);
    }
    expect((await stat(path)).ino).toBe(ino);
    expect((await readFile(path)).length).toBe(RECORD_BYTES);
  });

  it('a torn last write recovers the point before it, and the next write goes on from there', async () => {
    const store = new FileCheckpointStore(dir);
    await store.writeCleanClose(10);
    await store.writeCleanClose(20);
    await store.writeCleanClose(30);
    const path = join(dir, 'clean-close');
    const bytes = await readFile(path);
    // Sequence 3 is in slot 1: tear it.
    bytes[SLOT_BYTES + 20] = bytes[SLOT_BYTES + 20]! ^ 0xff;
    await writeFile(path, bytes);
    const again = new FileCheckpointStore(dir);
    expect(await again.readCleanClose()).toBe(20);
    await again.writeCleanClose(40);
    expect(await new FileCheckpointStore(dir).readCleanClose()).toBe(40);
  });

  it("an older store's text file is read, then replaced by the first write", async () => {
    await writeFile(join(dir, 'clean-close'), '4096');
    const store = new FileCheckpointStore(dir);
    expect(await store.readCleanClose()).toBe(4096);
    await store.writeCleanClose(8192);
    expect((await readFile(join(dir, 'clean-close'))).length).toBe(RECORD_BYTES);
    expect(await new FileCheckpointStore(dir).readCleanClose()).toBe(8192);
  });

  it('a checkpoint drops it; the next write starts a new file', async () => {
    const store = new FileCheckpointStore(dir);
    await store.writeCleanClose(10);
    await store.write(
      1,
      {
        version: 1,
        seq: 1,
        epoch: 0,
        begin: 0,
        until: 64,
        pageSize: 64,
        indexBytes: 0,
        indexCrc: 0,
        createdAt: 0,
      },
      [],
    );
    expect(await store.readCleanClose()).toBeNull();
    await store.writeCleanClose(128);
    expect(await new FileCheckpointStore(dir).readCleanClose()).toBe(128);
  });
});
