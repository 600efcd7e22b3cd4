import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeCommand } from '@strata/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../test/support.js';
import { readAofFile } from './aof-reader.js';
import { nodeFileSystem } from './file-system.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(() => cleanup());

async function read(bytes: Buffer, sliceBytes = 1 << 20) {
  const path = join(dir, `f${Math.random()}.aof`);
  await writeFile(path, bytes);
  const h = await nodeFileSystem.open(path, 'never');
  const seen: string[] = [];
  try {
    const r = await readAofFile(h, {
      sliceBytes,
      onCommand: (db, argv, offset) => {
        seen.push(`${db}@${offset}:${argv.map((a) => a.toString()).join(' ')}`);
      },
    });
    return { ...r, seen };
  } finally {
    await h.close();
  }
}

const file = Buffer.concat([
  encodeCommand(['SET', 'a', '1']),
  encodeCommand(['SELECT', '2']),
  encodeCommand(['INCR', 'n']),
  encodeCommand(['APPEND', 'a', 'x'.repeat(300)]),
  encodeCommand(['SELECT', '0']),
  encodeCommand(['DEL', 'a']),
]);

describe('readAofFile', () => {
  it('reads every command with its database and the offset of its record (SELECT included)', async () => {
    for (const slice of [7, 64, 1 << 20]) {
      const r = await read(file, slice);
      expect(r.torn).toBeNull();
      expect(r.commands).toBe(4);
      expect(r.validBytes).toBe(file.length);
      const selectAt = encodeCommand(['SET', 'a', '1']).length;
      expect(r.seen[0]).toBe('0@0:SET a 1');
      expect(r.seen[1]).toBe(`2@${selectAt}:INCR n`);
      expect(r.seen[2]?.startsWith('2@')).toBe(true);
      expect(r.seen[3]?.startsWith('0@')).toBe(true);
      expect(r.db).toBe(0);
    }
  });

  it('detects a torn record at every possible cut and keeps exactly the whole records before it', async () => {
    const ends: number[] = [];
    let at = 0;
    for (const c of [
      ['SET', 'a', '1'],
      ['SELECT', '2'],
      ['INCR', 'n'],
      ['APPEND', 'a', 'x'.repeat(300)],
      ['SELECT', '0'],
      ['DEL', 'a'],
    ]) {
      at += encodeCommand(c).length;
      ends.push(at);
    }
    for (let cut = 1; cut < file.length; cut += 3) {
      const r = await read(file.subarray(0, cut), 50);
      // The valid part ends at the last complete command (a SELECT alone is not kept).
      const whole = [ends[0]!, ends[2]!, ends[3]!, ends[5]!].filter((e) => e <= cut);
      const valid = whole.at(-1) ?? 0;
      expect(r.validBytes).toBe(valid);
      if (valid === cut) expect(r.torn).toBeNull();
      else expect(r.torn).toMatchObject({ offset: valid, bytes: cut - valid });
    }
  });

  it('treats a zero-filled end (extended, never written) as torn', async () => {
    const r = await read(Buffer.concat([file, Buffer.alloc(4096)]));
    expect(r.commands).toBe(4);
    expect(r.torn).toMatchObject({ offset: file.length, bytes: 4096, reason: 'zero-filled tail' });
  });

  it('treats a record cut off by zeros (its second block never written) as torn', async () => {
    const rec = encodeCommand(['SET', 'k', 'v'.repeat(100)]);
    const bytes = Buffer.concat([file, rec.subarray(0, 40), Buffer.alloc(200)]);
    const r = await read(bytes);
    expect(r.commands).toBe(4);
    expect(r.torn).toMatchObject({ offset: file.length, reason: 'zero-filled tail' });
    // Junk followed by zeros is still corruption.
    await expect(
      read(Buffer.concat([file, Buffer.from('junk'), Buffer.alloc(50)])),
    ).rejects.toMatchObject({
      code: 'ERR_AOF_CORRUPT',
    });
  });

  it('refuses junk before the end with ERR_AOF_CORRUPT and its offset', async () => {
    const bad = Buffer.concat([encodeCommand(['SET', 'a', '1']), Buffer.from('garbage\r\n'), file]);
    await expect(read(bad)).rejects.toMatchObject({ code: 'ERR_AOF_CORRUPT', address: 27 });
  });

  it('awaits a promise from onCommand before the next command', async () => {
    const path = join(dir, 'p.aof');
    await writeFile(path, file);
    const h = await nodeFileSystem.open(path, 'never');
    const order: string[] = [];
    await readAofFile(h, {
      onCommand: async (_db, argv) => {
        const name = argv[0]!.toString();
        await new Promise((r) => setTimeout(r, 2));
        order.push(name);
      },
    });
    await h.close();
    expect(order).toEqual(['SET', 'INCR', 'APPEND', 'DEL']);
  });

  it('a hole of zeros at a record start with bytes after it (a preallocated end after a power loss) is a torn end', async () => {
    // Sectors never written: the hole ends where a sector starts.
    const hole = Buffer.concat([
      file,
      Buffer.alloc(4096 - (file.length % 512)),
      encodeCommand(['SET', 'late', 'x'.repeat(50)]),
      Buffer.alloc(100),
    ]);
    for (const slice of [64, 1 << 20]) {
      const r = await read(hole, slice);
      expect(r.commands).toBe(4);
      expect(r.validBytes).toBe(file.length);
      expect(r.torn).toEqual({
        offset: file.length,
        bytes: hole.length - file.length,
        reason: 'unwritten blocks before the end',
      });
    }
    // Not a zero: damage, as before.
    const bad = Buffer.concat([file, Buffer.from('garbage'), Buffer.alloc(10)]);
    await expect(read(bad)).rejects.toThrow(/bad record/);
  });

  it('zeros from a record start that end inside a sector were written over data: damage, not a torn end', async () => {
    const later = encodeCommand(['SET', 'late', 'x'.repeat(50)]);
    // The hole ends 100 bytes into a sector: no torn write leaves that.
    const zeros = Buffer.alloc(512 - (file.length % 512) + 100);
    const damaged = Buffer.concat([file, zeros, later]);
    for (const slice of [64, 1 << 20]) {
      await expect(read(damaged, slice)).rejects.toMatchObject({
        code: 'ERR_AOF_CORRUPT',
        address: file.length,
      });
    }
  });

  it('stray bytes in the zeros kept ahead of the data, with no record after them, are still the unwritten end', async () => {
    const zeros = Buffer.alloc(8192);
    zeros[3001] = 0x40; // a flipped bit
    const r = await read(Buffer.concat([file, zeros]));
    expect(r.commands).toBe(4);
    expect(r.torn).toMatchObject({
      offset: file.length,
      reason: 'unwritten blocks before the end',
    });
  });
});
