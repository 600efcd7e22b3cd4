// A hand-built RDB file (version 9, as Redis 6.2 writes) with the opcodes a
// Redis 7.0 SAVE does not produce by default: EXPIRETIME in seconds, FREQ,
// IDLE, MODULE_AUX, and ziplist / zipmap values.
import { describe, expect, it } from 'vitest';
import {
  ByteWriter,
  Crc64,
  RDB_OPCODE,
  RDB_TYPE,
  RdbFileReader,
  type RdbRecord,
  writeListpack,
} from '../src/index.js';

async function* once(b: Buffer): AsyncGenerator<Uint8Array> {
  yield b;
}

const s = (t: string): Buffer => Buffer.from(t);

function fixture(checksum: boolean): Buffer {
  const w = new ByteWriter(false);
  w.raw(s('REDIS0009'));
  w.u8(RDB_OPCODE.AUX).string(s('redis-ver')).string(s('6.2.14'));
  w.u8(RDB_OPCODE.MODULE_AUX)
    .lenBig(0x123456n << 10n)
    .len(2)
    .len(2);
  w.len(2).lenBig(99n).len(5).string(s('module state')).len(4).raw(Buffer.alloc(8)).len(0);
  w.u8(RDB_OPCODE.SELECTDB).len(1);
  w.u8(RDB_OPCODE.RESIZEDB).len(3).len(1);
  const expire = Buffer.alloc(4);
  expire.writeInt32LE(2_000_000_000, 0);
  w.u8(RDB_OPCODE.EXPIRETIME).raw(expire);
  w.u8(RDB_OPCODE.FREQ).u8(7);
  w.u8(RDB_TYPE.STRING).string(s('a')).string(s('1'));
  w.u8(RDB_OPCODE.IDLE).len(1234);
  // A set as listpack (type 20) inside a version-9 file: readers go by type, not version.
  w.u8(RDB_TYPE.SET_LISTPACK)
    .string(s('b'))
    .string(writeListpack([s('m1'), s('2')]));
  // Old zset with text scores (type 3).
  w.u8(RDB_TYPE.ZSET)
    .string(s('c'))
    .len(2)
    .string(s('x'))
    .u8(3)
    .raw(s('1.5'))
    .string(s('y'))
    .u8(254);
  w.u8(RDB_OPCODE.EOF);
  const body = w.toBuffer();
  return Buffer.concat([body, checksum ? new Crc64().update(body).digestBytes() : Buffer.alloc(8)]);
}

describe('hand-built RDB file', () => {
  for (const checksum of [true, false]) {
    it(`reads opcodes, expiries in seconds, LFU/LRU hints (checksum ${checksum ? 'on' : 'off'})`, async () => {
      const reader = new RdbFileReader(once(fixture(checksum)));
      const recs: RdbRecord[] = [];
      for await (const r of reader) recs.push(r);
      expect(reader.version).toBe(9);
      expect(String(reader.aux.get('redis-ver'))).toBe('6.2.14');
      expect(reader.skippedModuleAux).toHaveLength(1);
      expect(recs.map((r) => [String(r.key), r.db, r.expireAtMs, r.freq, r.idleSeconds])).toEqual([
        ['a', 1, 2_000_000_000_000, 7, undefined],
        ['b', 1, undefined, undefined, 1234],
        ['c', 1, undefined, undefined, undefined],
      ]);
      expect(recs[1]?.value).toMatchObject({ type: 'set', members: [s('m1'), s('2')] });
      expect(recs[2]?.value).toMatchObject({
        type: 'zset',
        entries: [
          [s('x'), 1.5],
          [s('y'), Number.POSITIVE_INFINITY],
        ],
      });
    });
  }
});
