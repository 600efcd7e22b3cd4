import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
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

describe('readAofFile passOver', () => {
  /** A file with `#CRC:` lines as the writer puts them, over SELECTs, a transaction and a FLUSHALL. */
  function withChecksums(records: Buffer[]): Buffer {
    const out: Buffer[] = [];
    let crc = 0;
    records.forEach((r, i) => {
      out.push(r);
      crc = crc32(r, crc);
      // As the writer: never between a SELECT and its command.
      if (i === 1 || i === 5 || i === 9) {
        out.push(Buffer.from(`#CRC:${crc}\r\n`));
        crc = 0;
      }
    });
    return Buffer.concat(out);
  }
  const records = [
    encodeCommand(['SET', 'a', '1']),
    encodeCommand(['set', 'b', '2']),
    encodeCommand(['SELECT', '1']),
    encodeCommand(['SET', 'c', '3']),
    encodeCommand(['MULTI']),
    encodeCommand(['SET', 'd', '4']),
    encodeCommand(['EXEC']),
    encodeCommand(['SELECT', '0']),
    encodeCommand(['flushall']),
    encodeCommand(['SET', 'e', '5']),
    encodeCommand(['SET', 'f', '6']),
  ];
  const bytes = withChecksums(records);

  async function readPassing(
    buf: Buffer,
    before: (db: number, offset: number) => boolean,
    slice: number,
  ) {
    const path = join(dir, `p${Math.random()}.aof`);
    await writeFile(path, buf);
    const h = await nodeFileSystem.open(path, 'never');
    const seen: string[] = [];
    const passed: string[] = [];
    try {
      const r = await readAofFile(h, {
        sliceBytes: slice,
        passOver: { before, onPassed: (db, offset) => passed.push(`${db}@${offset}`) },
        onCommand: (db, argv, offset) => {
          seen.push(`${db}@${offset}:${argv.map((a) => a.toString()).join(' ')}`);
        },
      });
      return { r, seen, passed };
    } finally {
      await h.close();
    }
  }

  it('passes over what the caller will not apply, never SELECT, MULTI .. EXEC or FLUSHALL, at the same offsets', async () => {
    const all = await read(bytes);
    for (const slice of [16, 64, 1 << 20]) {
      const { r, seen, passed } = await readPassing(bytes, () => true, slice);
      expect(r.commands).toBe(all.commands);
      expect(r.checkedBytes).toBe(all.checkedBytes);
      // Kept: the transaction's three and FLUSHALL; the rest passed over, at their offsets.
      expect(seen.map((s) => s.split(':')[1])).toEqual(['MULTI', 'SET d 4', 'EXEC', 'flushall']);
      const byOffset = (list: string[]) => list.map((s) => s.split(':')[0]).sort();
      expect(byOffset([...seen, ...passed])).toEqual(byOffset(all.seen));
      expect(passed).toHaveLength(5);
    }
    // Passing over only database 0's first two.
    const { seen } = await readPassing(bytes, (db, offset) => db === 0 && offset < 40, 1 << 20);
    expect(seen[0]).toMatch(/^1@\d+:SET c 3$/);
  });

  it('still checks the bytes of what it passes over: a changed byte there fails its #CRC line', async () => {
    const damaged = Buffer.from(bytes);
    // The value of `SET b 2` (passed over) changed, still a valid record.
    const at = bytes.indexOf('$1\r\n2\r\n') + 4;
    damaged[at] = '9'.charCodeAt(0);
    await expect(readPassing(damaged, () => true, 1 << 20)).rejects.toMatchObject({
      code: 'ERR_AOF_CORRUPT',
    });
  });
});

describe('readAofFile slices', () => {
  it('a record longer than the room ahead of a slice, across several slices, reads whole', async () => {
    const big = 'v'.repeat(300_000);
    const bytes = Buffer.concat([
      encodeCommand(['SET', 'a', '1']),
      encodeCommand(['APPEND', 'big', big]),
      encodeCommand(['SET', 'b', '2']),
    ]);
    for (const slice of [1000, 64 << 10, 100_000, 1 << 20]) {
      const r = await read(bytes, slice);
      expect(r.commands).toBe(3);
      expect(r.torn).toBeNull();
      expect(r.seen[1]).toBe(`0@${encodeCommand(['SET', 'a', '1']).length}:APPEND big ${big}`);
      expect(r.seen[2]).toMatch(/:SET b 2$/);
    }
  });
});
