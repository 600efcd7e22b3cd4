import type { CompatCase } from './compat-cases.js';
import type { SessionCase } from './session-runner.js';

/**
 * HyperLogLog command sequences whose replies must be byte for byte Redis
 * 7's (recorded from redis-server 7.0 in hyperloglog-compat-expected.json
 * with `STRATA_RECORD_COMPAT=1 npx vitest run
 * test/compat/hyperloglog-compat.test.ts` from packages/resp; re-checked
 * against redis-server when it is installed). An HLL is a string: GET
 * after PFADD, PFCOUNT (which caches the cardinality in the header) and
 * PFMERGE shows Redis's exact bytes, and values SET from bytes Redis wrote
 * (or crafted, corrupt ones) are read as Redis reads them. Every case has
 * its own keys.
 */

/** Bytes from hex, as the latin1 text a command argument is sent as. */
const hex = (h: string): string => Buffer.from(h.replace(/\s+/g, ''), 'hex').toString('latin1');

/** The 16-byte header: magic, encoding, 3 unused bytes, the cached cardinality (little endian). */
function header(encoding: number, card: bigint, stale: boolean): string {
  const b = Buffer.alloc(16);
  b.write('HYLL', 0, 'latin1');
  b[4] = encoding;
  b.writeBigUInt64LE(card, 8);
  if (stale) b[15] = b[15]! | 0x80;
  return b.toString('latin1');
}

/** A dense value with register i = f(i), packed 6 bits each from the least significant bit up. */
function dense(f: (i: number) => number, card: bigint, stale: boolean): string {
  const regs = Buffer.alloc(12288 + 1);
  for (let i = 0; i < 16384; i++) {
    const bit = i * 6;
    const byte = bit >> 3;
    const shift = bit & 7;
    const v = f(i) & 63;
    regs[byte] = regs[byte]! | ((v << shift) & 0xff);
    regs[byte + 1] = regs[byte + 1]! | (v >> (8 - shift));
  }
  return header(0, card, stale) + regs.subarray(0, 12288).toString('latin1');
}

/** PFADD of `n` elements `prefix:i`, from `from` on. */
function adds(key: string, prefix: string, from: number, n: number): string[] {
  const argv = ['pfadd', key];
  for (let i = from; i < from + n; i++) argv.push(`${prefix}:${i}`);
  return argv;
}

/** Redis's PFADD hll a b c, before a PFCOUNT cached its cardinality (Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603). */
const REDIS_ABC = hex('48594c4c01000000 0000000000000080 60f38050b1844bfb80425a');

/** An MSET of `n` small keys: the test server's memory is 64 KiB, so the keys written before go to the disk. */
function filler(prefix: string, n = 3000): string[] {
  const argv = ['mset'];
  for (let i = 0; i < n; i++) argv.push(`${prefix}:${i}`, `filler-value-${i}-xxxxxxxxxxxx`);
  return argv;
}

export const HYPERLOGLOG_COMPAT_CASES: readonly CompatCase[] = [
  {
    name: 'pfadd return values, the cached cardinality in GET',
    commands: [
      ['pfadd', 'h1:a', 'a', 'b', 'c'],
      ['get', 'h1:a'],
      ['pfadd', 'h1:a', 'a', 'b', 'c'],
      ['pfadd', 'h1:a', 'c', 'd'],
      ['pfadd', 'h1:a'],
      ['get', 'h1:a'],
      ['pfcount', 'h1:a'],
      ['get', 'h1:a'],
      ['pfcount', 'h1:a'],
      ['pfadd', 'h1:a', 'a'],
      ['get', 'h1:a'],
      ['pfadd', 'h1:a', 'zz'],
      ['get', 'h1:a'],
      ['pfadd', 'h1:new'],
      ['get', 'h1:new'],
      ['pfadd', 'h1:new'],
      ['pfcount', 'h1:new'],
      ['get', 'h1:new'],
      ['pfcount', 'h1:missing'],
      ['exists', 'h1:missing'],
      ['type', 'h1:a'],
      ['strlen', 'h1:a'],
      ['pfdebug', 'encoding', 'h1:a'],
      ['pfdebug', 'decode', 'h1:a'],
      ['pfdebug', 'decode', 'h1:new'],
      ['append', 'h1:a', ''],
      ['pfcount', 'h1:a'],
    ],
  },
  {
    name: 'elements of every length and byte: the hash tails',
    commands: [
      ['pfadd', 'h2:a', '', 'x', 'xx', 'xxx', 'xxxx', 'xxxxx', 'xxxxxx', 'xxxxxxx'],
      ['pfadd', 'h2:a', 'x'.repeat(8), 'x'.repeat(9), 'x'.repeat(15), 'x'.repeat(16)],
      ['pfadd', 'h2:a', 'y'.repeat(17), 'z'.repeat(1000), 'w'.repeat(4097)],
      ['pfadd', 'h2:a', hex('00'), hex('ff'), hex('00ff80817f'), hex('ffffffffffffffffff')],
      [
        'pfadd',
        'h2:a',
        Buffer.from(Array.from({ length: 256 }, (_, i) => i)).toString('latin1'),
        Buffer.from(Array.from({ length: 255 }, (_, i) => 255 - i)).toString('latin1'),
      ],
      ['pfadd', 'h2:a', '1', '2', '3', '-1', '3.14', 'é', '日本'],
      ['get', 'h2:a'],
      ['pfcount', 'h2:a'],
      ['pfdebug', 'decode', 'h2:a'],
    ],
  },
  {
    name: 'sparse to dense past hll-sparse-max-bytes',
    commands: [
      adds('h3:big', 'e', 0, 500),
      ['pfcount', 'h3:big'],
      ['strlen', 'h3:big'],
      ['pfdebug', 'encoding', 'h3:big'],
      adds('h3:big', 'e', 500, 500),
      ['pfcount', 'h3:big'],
      ['strlen', 'h3:big'],
      ['pfdebug', 'encoding', 'h3:big'],
      ['get', 'h3:big'],
      adds('h3:big', 'e', 1000, 700),
      ['pfcount', 'h3:big'],
      ['strlen', 'h3:big'],
      ['pfdebug', 'encoding', 'h3:big'],
      adds('h3:big', 'e', 1700, 1000),
      ['pfcount', 'h3:big'],
      ['strlen', 'h3:big'],
      ['pfdebug', 'encoding', 'h3:big'],
      adds('h3:big', 'e', 2700, 3000),
      adds('h3:big', 'e', 5700, 4300),
      ['pfcount', 'h3:big'],
      ['pfadd', 'h3:big', 'e:1', 'e:2'],
      ['pfcount', 'h3:big'],
      ['get', 'h3:big'],
      ['pfdebug', 'decode', 'h3:big'],
      ['pfdebug', 'todense', 'h3:big'],
    ],
  },
  {
    name: 'pfcount of several keys',
    commands: [
      ['pfadd', 'h4:a', 'a', 'b', 'c'],
      ['pfadd', 'h4:b', 'c', 'd', 'e'],
      ['pfcount', 'h4:a', 'h4:b'],
      ['pfcount', 'h4:a', 'h4:b', 'h4:missing'],
      ['pfcount', 'h4:missing', 'h4:missing2'],
      ['pfcount', 'h4:a', 'h4:a'],
      // Several keys cache nothing: the headers are unchanged.
      ['get', 'h4:a'],
      adds('h4:c', 'k', 0, 4000),
      ['pfdebug', 'encoding', 'h4:c'],
      ['pfcount', 'h4:a', 'h4:b', 'h4:c'],
      adds('h4:d', 'k', 2000, 4000),
      ['pfcount', 'h4:c', 'h4:d'],
      ['pfcount', 'h4:c'],
      ['pfcount', 'h4:d'],
    ],
  },
  {
    name: 'pfmerge into a new and an existing destination',
    commands: [
      ['pfadd', 'h5:a', 'a', 'b', 'c'],
      ['pfadd', 'h5:b', 'c', 'd', 'e', 'f'],
      ['pfmerge', 'h5:dest', 'h5:a', 'h5:b'],
      ['get', 'h5:dest'],
      ['pfcount', 'h5:dest'],
      ['pfadd', 'h5:c', 'x', 'y'],
      ['pfmerge', 'h5:dest', 'h5:c', 'h5:missing'],
      ['get', 'h5:dest'],
      ['pfcount', 'h5:dest'],
      ['pfmerge', 'h5:dest'],
      ['get', 'h5:dest'],
      ['pfmerge', 'h5:only'],
      ['exists', 'h5:only'],
      ['get', 'h5:only'],
      ['pfmerge', 'h5:fromnothing', 'h5:missing1', 'h5:missing2'],
      ['get', 'h5:fromnothing'],
      ['pfmerge', 'h5:a', 'h5:b'],
      ['get', 'h5:a'],
      ['pfcount', 'h5:a'],
      ['set', 'h5:ttl', REDIS_ABC, 'ex', '1000'],
      ['pfmerge', 'h5:ttl', 'h5:b'],
      ['ttl', 'h5:ttl'],
      ['pfcount', 'h5:ttl'],
    ],
  },
  {
    name: 'pfmerge: sparse growing dense, and dense inputs',
    commands: [
      adds('h6:s1', 'm', 0, 900),
      adds('h6:s2', 'm', 900, 900),
      ['pfdebug', 'encoding', 'h6:s1'],
      ['pfdebug', 'encoding', 'h6:s2'],
      ['pfmerge', 'h6:u', 'h6:s1', 'h6:s2'],
      ['pfdebug', 'encoding', 'h6:u'],
      ['pfcount', 'h6:u'],
      ['pfadd', 'h6:small', 'a'],
      ['pfadd', 'h6:dense', 'a', 'b'],
      ['pfdebug', 'todense', 'h6:dense'],
      ['pfmerge', 'h6:small', 'h6:dense'],
      ['pfdebug', 'encoding', 'h6:small'],
      ['pfcount', 'h6:small'],
      ['pfadd', 'h6:small2', 'q'],
      ['pfmerge', 'h6:dense', 'h6:small2'],
      ['pfdebug', 'encoding', 'h6:dense'],
      ['get', 'h6:dense'],
      ['pfmerge', 'h6:new', 'h6:small2', 'h6:dense'],
      ['pfdebug', 'encoding', 'h6:new'],
      ['pfcount', 'h6:new'],
    ],
  },
  {
    name: 'SET of Redis-written and crafted HLL values, then PFCOUNT',
    commands: [
      ['set', 'h7:abc', REDIS_ABC],
      ['pfcount', 'h7:abc'],
      ['get', 'h7:abc'],
      ['pfadd', 'h7:abc', 'd'],
      ['get', 'h7:abc'],
      ['set', 'h7:dense', dense((i) => (i * 7) % 23, 0n, true)],
      ['pfcount', 'h7:dense'],
      ['pfdebug', 'encoding', 'h7:dense'],
      ['getrange', 'h7:dense', '0', '15'],
      ['set', 'h7:dense2', dense((i) => (i % 3 === 0 ? 0 : i % 50), 0n, true)],
      ['pfcount', 'h7:dense2'],
      ['pfcount', 'h7:dense', 'h7:dense2', 'h7:abc'],
      ['pfmerge', 'h7:m', 'h7:abc', 'h7:dense'],
      ['pfcount', 'h7:m'],
      // Registers past what the sparse code can hold (> 32), merged into a sparse destination.
      ['set', 'h7:high', dense((i) => (i < 3 ? 40 + i : 0), 0n, true)],
      ['pfcount', 'h7:high'],
      ['pfmerge', 'h7:abc', 'h7:high'],
      ['pfdebug', 'encoding', 'h7:abc'],
      ['pfcount', 'h7:abc'],
      // A valid cache is returned as it is, whatever the registers say.
      ['set', 'h7:cached', dense(() => 0, 12345n, false)],
      ['pfcount', 'h7:cached'],
      ['set', 'h7:bigcard', header(1, 4611686018427387909n, false) + hex('7fff')],
      ['pfcount', 'h7:bigcard'],
      ['pfcount', 'h7:bigcard', 'h7:bigcard'],
      ['set', 'h7:empty', header(1, 0n, false) + hex('7fff')],
      ['pfcount', 'h7:empty'],
      ['set', 'h7:twoxzero', header(1, 0n, true) + hex('5fff 5fff')],
      ['pfcount', 'h7:twoxzero'],
      ['pfadd', 'h7:twoxzero', 'a', 'b', 'c', 'd'],
      ['get', 'h7:twoxzero'],
      ['pfdebug', 'decode', 'h7:twoxzero'],
      ['set', 'h7:zeros', header(1, 0n, true) + hex('3f'.repeat(256))],
      ['pfcount', 'h7:zeros'],
      ['pfadd', 'h7:zeros', 'a', 'b', 'c', 'd', 'e', 'f', 'g'],
      ['get', 'h7:zeros'],
      ['set', 'h7:vals', header(1, 0n, true) + hex('83 83 83 7ff3')],
      ['pfcount', 'h7:vals'],
      ['pfadd', 'h7:vals', 'f', 'i'],
      ['pfdebug', 'decode', 'h7:vals'],
    ],
  },
  {
    name: 'values that are no HLL: WRONGTYPE Key is not a valid HyperLogLog string value',
    commands: [
      ['set', 'h8:garbage', 'HYLLgarbage-garbage-garbage'],
      ['pfcount', 'h8:garbage'],
      ['pfadd', 'h8:garbage', 'a'],
      ['pfadd', 'h8:garbage'],
      ['pfcount', 'h8:garbage', 'h8:missing'],
      ['pfcount', 'h8:missing', 'h8:garbage'],
      ['pfmerge', 'h8:dest', 'h8:garbage'],
      ['exists', 'h8:dest'],
      ['pfmerge', 'h8:garbage', 'h8:missing'],
      ['pfdebug', 'getreg', 'h8:garbage'],
      ['pfdebug', 'nosuch', 'h8:garbage'],
      ['get', 'h8:garbage'],
      ['set', 'h8:short', 'HYLL'],
      ['pfcount', 'h8:short'],
      ['set', 'h8:plain', 'hello'],
      ['pfadd', 'h8:plain', 'a'],
      ['set', 'h8:empty', ''],
      ['pfcount', 'h8:empty'],
      ['set', 'h8:int', '12345678901234567'],
      ['pfcount', 'h8:int'],
      ['set', 'h8:magic', `hyll${hex('01000000 0000000000000080 7fff')}`],
      ['pfcount', 'h8:magic'],
      ['set', 'h8:enc2', header(2, 0n, true) + hex('7fff')],
      ['pfcount', 'h8:enc2'],
      ['set', 'h8:denseshort', dense(() => 1, 0n, true).slice(0, 12303)],
      ['pfcount', 'h8:denseshort'],
      ['set', 'h8:denselong', `${dense(() => 1, 0n, true)}x`],
      ['pfadd', 'h8:denselong', 'a'],
      ['set', 'h8:hdr', header(1, 0n, true)],
      ['pfdebug', 'encoding', 'h8:hdr'],
    ],
  },
  {
    name: 'corrupt sparse code: INVALIDOBJ Corrupted HLL object detected',
    commands: [
      // One ZERO opcode: 1 register of 16384.
      ['set', 'h9:short', header(1, 0n, true) + hex('00')],
      ['pfcount', 'h9:short'],
      ['pfadd', 'h9:short', 'a'],
      ['pfcount', 'h9:short', 'h9:missing'],
      ['pfmerge', 'h9:dest', 'h9:short'],
      ['exists', 'h9:dest'],
      ['pfmerge', 'h9:short'],
      ['pfdebug', 'decode', 'h9:short'],
      ['pfdebug', 'encoding', 'h9:short'],
      ['pfdebug', 'todense', 'h9:short'],
      ['pfdebug', 'getreg', 'h9:short'],
      ['get', 'h9:short'],
      // Past 16384 registers.
      ['set', 'h9:long', header(1, 0n, true) + hex('7fff 00')],
      ['pfcount', 'h9:long'],
      ['pfcount', 'h9:long', 'h9:long'],
      ['pfadd', 'h9:long', 'a', 'b'],
      ['get', 'h9:long'],
      ['pfdebug', 'todense', 'h9:long'],
      // A VAL that runs past the last register.
      ['set', 'h9:valover', header(1, 0n, true) + hex('7ffe 83')],
      ['pfcount', 'h9:valover'],
      ['pfmerge', 'h9:d2', 'h9:valover'],
      // A valid cache is answered without reading the registers.
      ['set', 'h9:cached', header(1, 7n, false) + hex('00')],
      ['pfcount', 'h9:cached'],
      ['pfcount', 'h9:cached', 'h9:cached'],
      ['set', 'h9:cachedgarbage', `${header(1, 0n, false)}garbage`],
      ['pfcount', 'h9:cachedgarbage'],
      ['pfadd', 'h9:cachedgarbage', 'a'],
      // Registers 0-7999 only: d and f fit and are written, a does not (the error).
      ['set', 'h9:partial', header(1, 0n, true) + hex('5f3f')],
      ['pfadd', 'h9:partial', 'd', 'f', 'a', 'i'],
      ['get', 'h9:partial'],
      ['pfdebug', 'decode', 'h9:partial'],
      ['pfadd', 'h9:partial', 'a'],
      ['get', 'h9:partial'],
      // An XZERO cut after its first byte (Redis reads its string's 0 terminator as the second).
      ['set', 'h9:cut', header(1, 0n, true) + hex('7f')],
      ['pfcount', 'h9:cut'],
      ['pfdebug', 'decode', 'h9:cut'],
      ['pfdebug', 'todense', 'h9:cut'],
    ],
  },
  {
    name: 'keys of another type: WRONGTYPE',
    commands: [
      ['rpush', 'h10:list', 'a'],
      ['hset', 'h10:hash', 'f', 'v'],
      ['pfadd', 'h10:list', 'a'],
      ['pfadd', 'h10:list'],
      ['pfcount', 'h10:list'],
      ['pfcount', 'h10:hash', 'h10:list'],
      ['pfcount', 'h10:missing', 'h10:hash'],
      ['pfmerge', 'h10:list', 'h10:missing'],
      ['pfmerge', 'h10:dest', 'h10:hash'],
      ['exists', 'h10:dest'],
      ['pfdebug', 'getreg', 'h10:list'],
      ['pfdebug', 'nosuch', 'h10:list'],
      ['lrange', 'h10:list', '0', '-1'],
    ],
  },
  {
    name: 'arity and PFDEBUG errors',
    commands: [
      ['pfadd'],
      ['pfcount'],
      ['pfmerge'],
      ['pfdebug'],
      ['pfdebug', 'getreg'],
      ['pfdebug', 'getreg', 'h11:a', 'extra'],
      ['pfdebug', 'decode', 'h11:a', 'extra'],
      ['pfselftest', 'x'],
      ['pfdebug', 'getreg', 'h11:missing'],
      ['pfdebug', 'nosuch', 'h11:missing'],
      ['pfadd', 'h11:a', 'a'],
      ['pfdebug', 'nosuch', 'h11:a'],
      ['pfdebug', `bad${hex('00')}name`, 'h11:a'],
      ['pfdebug', 'bad\r\nname', 'h11:a'],
      ['pfdebug', 'ENCODING', 'h11:a'],
      ['pfdebug', 'Decode', 'h11:a'],
    ],
  },
  {
    name: 'pfdebug getreg and todense',
    commands: [
      ['pfadd', 'h12:a', 'a', 'b', 'c', 'd', 'e'],
      ['pfdebug', 'encoding', 'h12:a'],
      ['pfdebug', 'GETREG', 'h12:a'],
      ['pfdebug', 'encoding', 'h12:a'],
      ['pfdebug', 'decode', 'h12:a'],
      ['pfdebug', 'todense', 'h12:a'],
      ['pfcount', 'h12:a'],
      ['getrange', 'h12:a', '0', '40'],
      ['pfadd', 'h12:b', 'x'],
      ['pfdebug', 'todense', 'h12:b'],
      ['pfdebug', 'todense', 'h12:b'],
      ['pfdebug', 'encoding', 'h12:b'],
      ['pfcount', 'h12:b'],
      ['strlen', 'h12:b'],
    ],
  },
  {
    name: 'resp3 replies',
    resp3: true,
    commands: [
      ['pfadd', 'h13:a', 'a', 'b'],
      ['pfadd', 'h13:a', 'a'],
      ['pfcount', 'h13:a'],
      ['pfcount', 'h13:a', 'h13:missing'],
      ['pfmerge', 'h13:m', 'h13:a'],
      ['get', 'h13:m'],
      ['pfdebug', 'encoding', 'h13:a'],
      ['pfdebug', 'decode', 'h13:a'],
      ['pfdebug', 'todense', 'h13:a'],
      ['pfdebug', 'decode', 'h13:a'],
      ['set', 'h13:bad', header(1, 0n, true) + hex('00')],
      ['pfcount', 'h13:bad'],
      ['set', 'h13:str', 'x'],
      ['pfcount', 'h13:str'],
      ['pfdebug', 'getreg', 'h13:missing'],
      ['pfadd'],
    ],
  },
  {
    name: 'WATCH sees a PFCOUNT that cached the cardinality',
    commands: [
      ['pfadd', 'h14:a', 'a', 'b'],
      ['watch', 'h14:a'],
      ['pfcount', 'h14:a'],
      ['multi'],
      ['ping'],
      ['exec'],
      ['watch', 'h14:a'],
      ['pfcount', 'h14:a'],
      ['multi'],
      ['ping'],
      ['exec'],
      ['multi'],
      ['pfadd', 'h14:b', 'x'],
      ['pfcount', 'h14:b'],
      ['pfmerge', 'h14:c', 'h14:a', 'h14:b'],
      ['pfcount', 'h14:c'],
      ['exec'],
    ],
  },
  {
    name: 'HLLs read from the disk',
    commands: [
      ['pfadd', 'h15:a', 'a', 'b', 'c'],
      adds('h15:d', 'z', 0, 4000),
      ['pfadd', 'h15:b', 'x', 'y'],
      ['pfadd', 'h15:c', 'x', 'q'],
      filler('h15:fill'),
      ['pfcount', 'h15:a'],
      ['pfcount', 'h15:b', 'h15:c', 'h15:d', 'h15:missing'],
      filler('h15:fill2'),
      ['pfmerge', 'h15:b', 'h15:c', 'h15:a'],
      ['get', 'h15:b'],
      filler('h15:fill3'),
      ['pfadd', 'h15:c', 'r'],
      ['get', 'h15:c'],
      ['pfadd', 'h15:d', 'z:1'],
      ['pfcount', 'h15:d'],
      filler('h15:fill4'),
      ['pfdebug', 'todense', 'h15:c'],
      ['pfdebug', 'encoding', 'h15:c'],
      ['pfcount', 'h15:c'],
    ],
  },
  {
    name: 'hll-sparse-max-bytes set by CONFIG SET (then back to 3000)',
    commands: [
      ['config', 'set', 'hll-sparse-max-bytes', '30'],
      ['pfadd', 'h16:a', 'a', 'b', 'c'],
      ['pfdebug', 'encoding', 'h16:a'],
      ['pfadd', 'h16:a', 'd'],
      ['pfdebug', 'encoding', 'h16:a'],
      ['strlen', 'h16:a'],
      ['pfadd', 'h16:a', 'e'],
      ['pfdebug', 'encoding', 'h16:a'],
      ['pfcount', 'h16:a'],
      ['pfadd', 'h16:b', 'x', 'y'],
      ['pfadd', 'h16:c', 'p', 'q'],
      ['pfmerge', 'h16:m', 'h16:b', 'h16:c'],
      ['pfdebug', 'encoding', 'h16:m'],
      ['config', 'set', 'hll-sparse-max-bytes', '0'],
      ['pfadd', 'h16:zero', 'a'],
      ['pfdebug', 'encoding', 'h16:zero'],
      ['pfadd', 'h16:zero2'],
      ['pfdebug', 'encoding', 'h16:zero2'],
      ['config', 'set', 'hll-sparse-max-bytes', '1kb'],
      ['config', 'get', 'hll-sparse-max-bytes'],
      adds('h16:k', 'k', 0, 300),
      ['pfdebug', 'encoding', 'h16:k'],
      adds('h16:k', 'k', 300, 300),
      ['pfdebug', 'encoding', 'h16:k'],
      ['pfcount', 'h16:k'],
      ['pfselftest'],
      ['config', 'set', 'hll-sparse-max-bytes', '3000'],
    ],
  },
  {
    name: 'COMMAND INFO and GETKEYS of the HyperLogLog commands',
    commands: [
      ['command', 'info', 'pfadd', 'pfcount', 'pfdebug', 'pfselftest'],
      ['command', 'getkeys', 'pfmerge', 'd', 's1', 's2'],
      ['command', 'getkeys', 'pfcount', 'a', 'b'],
      ['command', 'getkeys', 'pfdebug', 'getreg', 'k'],
    ],
  },
  {
    name: 'pfselftest',
    commands: [['pfselftest']],
  },
];

type Step = readonly [number, ...string[]];

const listen = (): Step => [0, 'psubscribe', '__key*__:*'];
const events = (flags: string): Step => [1, 'config', 'set', 'notify-keyspace-events', flags];

/**
 * Keyspace notifications of the HyperLogLog commands, over a listening
 * connection (0) and a writing one (1): Redis sends `pfadd` for PFADD and
 * PFMERGE, `new` when either makes the key, `keymiss` for the keys PFCOUNT
 * and PFMERGE read that are missing, and nothing for PFCOUNT's caching or
 * PFDEBUG's encoding changes.
 */
export const HYPERLOGLOG_SESSION_CASES: readonly SessionCase[] = [
  {
    name: 'PFADD PFCOUNT PFMERGE PFDEBUG events (KEAnm)',
    steps: [
      listen(),
      [1, 'set', 'hn:bad', 'HYLLxxxxxxxxxxxxxxxx'],
      events('KEAnm'),
      [1, 'pfadd', 'hn:a', 'a', 'b'],
      [1, 'pfadd', 'hn:a', 'a'],
      [1, 'pfadd', 'hn:a', 'c'],
      [1, 'pfadd', 'hn:empty'],
      [1, 'pfcount', 'hn:a'],
      [1, 'pfcount', 'hn:missing'],
      [1, 'pfcount', 'hn:a', 'hn:missing', 'hn:missing2'],
      [1, 'pfcount', 'hn:missing', 'hn:bad', 'hn:missing2'],
      [1, 'pfadd', 'hn:bad', 'x'],
      [1, 'pfmerge', 'hn:dest', 'hn:a', 'hn:missing'],
      [1, 'pfmerge', 'hn:dest', 'hn:a'],
      [1, 'pfmerge', 'hn:dest2', 'hn:bad'],
      [1, 'pfdebug', 'todense', 'hn:a'],
      [1, 'pfdebug', 'todense', 'hn:dest'],
      [1, 'pfdebug', 'encoding', 'hn:missing'],
      events(''),
      [0, 'reset'],
    ],
  },
];
