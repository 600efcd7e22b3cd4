import { RecordType } from '@strata/hlog';
import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { accessWordOf, refCount, stringEncoding } from '../keys/object.js';

const noSuchKey = () => new CommandError('ERR_NO_SUCH_KEY', 'ERR no such key');

/** rdbSaveLen's size for a length. */
const lenBytes = (n: number): number => (n < 64 ? 1 : n < 16384 ? 2 : n <= 0xffffffff ? 5 : 9);

/** An integer Redis's RDB keeps in 1, 2 or 4 bytes, or null. */
function intBytes(v: bigint): number | null {
  if (v >= -128n && v <= 127n) return 1;
  if (v >= -32768n && v <= 32767n) return 2;
  if (v >= -2147483648n && v <= 2147483647n) return 4;
  return null;
}

/**
 * A string's rdbSavedObjectLen: an integer value in 1, 2 or 4 bytes after
 * its type byte, otherwise its length and bytes (LZF compression, which
 * Redis tries past 20 bytes, is not counted: longer values read as stored).
 */
function stringSerializedLength(bytes: Uint8Array, off: number, len: number): number {
  if (stringEncoding(bytes, off, len) === 'int' || len <= 11) {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset + off, len).toString('latin1');
    if (/^(0|-?[1-9][0-9]*)$/.test(text)) {
      const n = intBytes(BigInt(text));
      if (n !== null) return 1 + n;
    }
  }
  return lenBytes(len) + len;
}

function line(
  c: Client,
  key: Buffer,
  encoding: string,
  refcount: number,
  serialized: number,
): string {
  // Redis's raw 24-bit field and estimateObjectIdleTime, whatever the policy.
  const word = accessWordOf(c, key);
  const idle = Math.floor(c.server.access.idleMs(word) / 1000);
  // No object address here: a stable made-up one keeps the shape.
  return `Value at:0x0 refcount:${refcount} encoding:${encoding} serializedlength:${serialized} lru:${word} lru_seconds_idle:${idle}`;
}

/**
 * DEBUG OBJECT key: Redis's line, with OBJECT ENCODING's and OBJECT
 * REFCOUNT's values, lru and lru_seconds_idle from the key's access word
 * (OBJECT IDLETIME's). A collection's serializedlength is its record's size
 * in strata's log, and Redis's quicklist fields are not given.
 */
export function debugObject(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[2]!;
  const reply = (r: { status: 'found'; type: number } | { status: 'notFound' }): CommandResult => {
    if (r.status === 'notFound') throw noSuchKey();
    if (r.type === RecordType.STRING) {
      const answer = (b: Uint8Array, o: number, l: number) =>
        c.reply.simple(
          line(c, key, stringEncoding(b, o, l), refCount(b, o, l), stringSerializedLength(b, o, l)),
        );
      const v = c.store.read(key);
      if (v.status === 'found') answer(v.bytes, v.offset, v.length);
      else if (v.status === 'notFound') throw noSuchKey();
      else {
        return v.pending.then((x) => {
          if (x.status !== 'found') throw noSuchKey();
          answer(x.value, 0, x.value.length);
        });
      }
      return undefined;
    }
    const found = c.collections.get(key, r.type);
    const answer = (x: Awaited<typeof found>) => {
      if (x.status !== 'found') throw noSuchKey();
      c.reply.simple(line(c, key, x.value.encoding(), 1, x.value.encode().length));
    };
    if (found instanceof Promise) return found.then(answer);
    answer(found);
    return undefined;
  };
  const p = c.store.probe(key);
  if (p.status === 'pending') return p.pending.then(reply);
  return reply(p);
}
