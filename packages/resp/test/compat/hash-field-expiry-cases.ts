/**
 * Hash field expiry (HEXPIRE..., HTTL..., HPERSIST, HGETEX, HSETEX,
 * HGETDEL) replies byte for byte, RESP2 and RESP3.
 *
 * There is no live half: the installed redis-server is 7.0.15, which has
 * none of these commands (HEXPIRE came in 7.4, HGETEX/HSETEX/HGETDEL in
 * 8.0). The expected replies are written here as data derived from Redis
 * 8's src/t_hash.c (hexpireGenericCommand, httlGenericCommand,
 * hpersistCommand, hgetexCommand, hsetexCommand, hgetdelCommand,
 * parseExpireTime, hsetexParseArgs, listpackExAddInternal's order) and its
 * tests/unit/type/hash-field-expire.tcl, each reply spelt out below in a
 * small notation rendered to RESP2 or RESP3 bytes. Nothing depends on the
 * clock: times are absolute (2100-01-01), relative ones are read back in
 * whole seconds, past ones delete at once.
 */

/** One reply: integer, bulk, null, error, simple string, array, or a map (HGETALL). */
export type Reply =
  | number
  | string
  | null
  | { readonly err: string }
  | { readonly simple: string }
  | readonly Reply[]
  | { readonly map: readonly (readonly [string, string])[] };

export interface FieldExpiryCase {
  readonly name: string;
  readonly resp3?: boolean;
  readonly steps: readonly (readonly [readonly string[], Reply])[];
}

/** The bytes of `r` in RESP `protocol`. */
export function render(r: Reply, protocol: 2 | 3): string {
  if (r === null) return protocol === 3 ? '_\r\n' : '$-1\r\n';
  if (typeof r === 'number') return `:${r}\r\n`;
  if (typeof r === 'string') return `$${Buffer.byteLength(r, 'latin1')}\r\n${r}\r\n`;
  if (Array.isArray(r))
    return `*${r.length}\r\n${r.map((x: Reply) => render(x, protocol)).join('')}`;
  if ('err' in r) return `-${r.err}\r\n`;
  if ('simple' in r) return `+${r.simple}\r\n`;
  const m = (r as { readonly map: readonly (readonly [string, string])[] }).map;
  const body = m.map(([f, v]) => render(f, protocol) + render(v, protocol)).join('');
  return protocol === 3 ? `%${m.length}\r\n${body}` : `*${m.length * 2}\r\n${body}`;
}

/** 2100-01-01T00:00:00Z, and 100 s later. */
const T1 = 4102444800;
const T2 = T1 + 100;
const t = String;
const OK = { simple: 'OK' } as const;
const err = (e: string) => ({ err: e });
const WRONGTYPE = err('WRONGTYPE Operation against a key holding the wrong kind of value');
const NOT_INTEGER = err('ERR value is not an integer or out of range');
const NUMFIELDS_EXPIRE = err('ERR Parameter `numFields` should be greater than 0');
const NUMFIELDS = err('ERR Number of fields must be a positive integer');
const MISMATCH = err('ERR The `numfields` parameter must match the number of arguments');
const NO_FIELDS = err('ERR Mandatory argument FIELDS is missing or not at the right position');
const NEGATIVE = err('ERR invalid expire time, must be >= 0');
const tooLate = (cmd: string) => err(`ERR invalid expire time in '${cmd}' command`);
const arity = (cmd: string) => err(`ERR wrong number of arguments for '${cmd}' command`);
const map = (...kv: string[]) => {
  const m: [string, string][] = [];
  for (let i = 0; i < kv.length; i += 2) m.push([kv[i]!, kv[i + 1]!]);
  return { map: m };
};
const V65 = 'v'.repeat(65);

const CASES: readonly FieldExpiryCase[] = [
  {
    name: 'hexpire: a missing key, argument errors in order, the time bounds',
    steps: [
      [['hexpire', 'hf1:h', '100', 'FIELDS', '1', 'a'], [-2]],
      [['hexpire', 'hf1:h', 'abc', 'FIELDS', '1', 'a'], NOT_INTEGER],
      [['hset', 'hf1:h', 'a', '1', 'b', '2', 'c', '3'], 3],
      [['hexpire', 'hf1:h', '100', 'FIELDS', '0', 'a'], NUMFIELDS_EXPIRE],
      [['hexpire', 'hf1:h', '100', 'FIELDS', '-1', 'a'], NUMFIELDS_EXPIRE],
      [['hexpire', 'hf1:h', '100', 'FIELDS', 'x', 'a'], NUMFIELDS_EXPIRE],
      [['hexpire', 'hf1:h', '100', 'FIELDS', '2', 'a'], MISMATCH],
      [['hexpire', 'hf1:h', '100', 'FIELDS', '1', 'a', 'b'], MISMATCH],
      [['hexpire', 'hf1:h', '100', 'NX', 'FOO', '1', 'a'], NO_FIELDS],
      [['hexpire', 'hf1:h', '100', 'XYZ', '1', 'a'], NO_FIELDS],
      [['hexpire', 'hf1:h', '-1', 'FIELDS', '1', 'a'], NEGATIVE],
      [['hexpire', 'hf1:h', '70368744178', 'FIELDS', '1', 'a'], tooLate('hexpire')],
      [['hexpireat', 'hf1:h', '70368744178', 'FIELDS', '1', 'a'], tooLate('hexpireat')],
      [['hpexpireat', 'hf1:h', '70368744177664', 'FIELDS', '1', 'a'], tooLate('hpexpireat')],
      [['hpexpireat', 'hf1:h', '70368744177663', 'FIELDS', '1', 'a'], [1]],
      [['hpexpiretime', 'hf1:h', 'FIELDS', '1', 'a'], [70368744177663]],
      [['hexpiretime', 'hf1:h', 'FIELDS', '1', 'a'], [70368744178]],
      [['hexpire', 'hf1:h', '100', 'FIELDS', '1'], arity('hexpire')],
      [['set', 'hf1:s', 'x'], OK],
      [['hexpire', 'hf1:s', 'abc', 'FIELDS', '1', 'a'], WRONGTYPE],
      [['httl', 'hf1:s', 'FIELDS', '1', 'a'], WRONGTYPE],
      [['hpersist', 'hf1:s', 'FIELDS', '1', 'a'], WRONGTYPE],
      [['hgetex', 'hf1:s', 'FIELDS', '1', 'a'], WRONGTYPE],
      [['hgetdel', 'hf1:s', 'FIELDS', '1', 'a'], WRONGTYPE],
    ],
  },
  {
    name: 'hexpireat: NX XX GT LT, the reply codes, listpackex order, HPERSIST',
    steps: [
      [['hset', 'hf2:h', 'a', '1', 'b', '2', 'c', '3'], 3],
      [['object', 'encoding', 'hf2:h'], 'listpack'],
      [
        ['hexpireat', 'hf2:h', t(T1), 'FIELDS', '2', 'a', 'nosuch'],
        [1, -2],
      ],
      [['object', 'encoding', 'hf2:h'], 'listpackex'],
      [
        ['hexpireat', 'hf2:h', t(T2), 'NX', 'FIELDS', '2', 'a', 'b'],
        [0, 1],
      ],
      [
        ['hexpireat', 'hf2:h', t(T2), 'xx', 'FIELDS', '2', 'a', 'c'],
        [1, 0],
      ],
      [
        ['hexpireat', 'hf2:h', t(T1), 'GT', 'FIELDS', '2', 'a', 'c'],
        [0, 0],
      ],
      [
        ['hexpireat', 'hf2:h', t(T1), 'LT', 'fields', '2', 'a', 'c'],
        [1, 1],
      ],
      [
        ['hexpiretime', 'hf2:h', 'FIELDS', '4', 'a', 'b', 'c', 'nosuch'],
        [T1, T2, T1, -2],
      ],
      [['hpexpiretime', 'hf2:h', 'FIELDS', '1', 'b'], [T2 * 1000]],
      // Soonest first; c (set last to T1) goes before a (T1 already).
      [['hgetall', 'hf2:h'], map('c', '3', 'a', '1', 'b', '2')],
      [
        ['hpersist', 'hf2:h', 'FIELDS', '2', 'c', 'nosuch'],
        [1, -2],
      ],
      [['hpersist', 'hf2:h', 'FIELDS', '1', 'c'], [-1]],
      // A field without expiry goes after those with one.
      [['hgetall', 'hf2:h'], map('a', '1', 'b', '2', 'c', '3')],
      [['httl', 'hf2:h', 'FIELDS', '1', 'c'], [-1]],
      // HSET drops the field's expiry (and moves it among those without).
      [['hset', 'hf2:h', 'a', '10'], 0],
      [['hexpiretime', 'hf2:h', 'FIELDS', '1', 'a'], [-1]],
      [['hgetall', 'hf2:h'], map('b', '2', 'c', '3', 'a', '10')],
      [
        ['hkeys', 'hf2:h'],
        ['b', 'c', 'a'],
      ],
      [['hlen', 'hf2:h'], 3],
      [
        ['hexpireat', 'hf2:h', '1', 'FIELDS', '2', 'b', 'nosuch'],
        [2, -2],
      ],
      [['hgetall', 'hf2:h'], map('c', '3', 'a', '10')],
      [['object', 'encoding', 'hf2:h'], 'listpackex'],
      [
        ['hexpire', 'hf2:h', '0', 'FIELDS', '2', 'c', 'a'],
        [2, 2],
      ],
      [['exists', 'hf2:h'], 0],
      [['hpersist', 'hf2:h', 'FIELDS', '1', 'a'], [-2]],
    ],
  },
  {
    name: 'httl and friends: relative times, missing keys and fields, argument errors',
    steps: [
      [['hset', 'hf3:h', 'a', '1', 'b', '2'], 2],
      [['hexpire', 'hf3:h', '1000', 'FIELDS', '1', 'a'], [1]],
      [
        ['httl', 'hf3:h', 'FIELDS', '3', 'a', 'b', 'x'],
        [1000, -1, -2],
      ],
      [['hpexpire', 'hf3:h', '5000000', 'FIELDS', '1', 'b'], [1]],
      [
        ['httl', 'hf3:h', 'FIELDS', '2', 'a', 'b'],
        [1000, 5000],
      ],
      [
        ['httl', 'hf3:nokey', 'FIELDS', '2', 'a', 'b'],
        [-2, -2],
      ],
      [['hpttl', 'hf3:nokey', 'FIELDS', '1', 'a'], [-2]],
      [['hexpiretime', 'hf3:nokey', 'FIELDS', '1', 'a'], [-2]],
      [['httl', 'hf3:h', 'FIELDS', '0', 'a'], NUMFIELDS],
      [['httl', 'hf3:h', 'FIELDS', '2', 'a'], MISMATCH],
      [['httl', 'hf3:h', 'FOO', '1', 'a'], NO_FIELDS],
      [['httl', 'hf3:h', 'FIELDS', '1'], arity('httl')],
      [['hpersist', 'hf3:h', 'FIELDS', '0', 'a'], NUMFIELDS],
      [['hpersist', 'hf3:h', 'FIELDS', '1', 'a', 'b'], MISMATCH],
      [['hpersist', 'hf3:h', 'FIELD', '1', 'a'], NO_FIELDS],
      [
        ['hpersist', 'hf3:nokey', 'FIELDS', '2', 'a', 'b'],
        [-2, -2],
      ],
      [
        ['hpersist', 'hf3:h', 'FIELDS', '2', 'a', 'b'],
        [1, 1],
      ],
      [
        ['httl', 'hf3:h', 'FIELDS', '2', 'a', 'b'],
        [-1, -1],
      ],
    ],
  },
  {
    name: 'hgetex: values, EXAT, PERSIST, a past time, errors',
    steps: [
      [['hset', 'hf4:h', 'a', '1', 'b', '2', 'c', '3'], 3],
      [
        ['hgetex', 'hf4:h', 'FIELDS', '2', 'a', 'x'],
        ['1', null],
      ],
      [['object', 'encoding', 'hf4:h'], 'listpack'],
      [
        ['hgetex', 'hf4:h', 'EXAT', t(T1), 'FIELDS', '2', 'a', 'x'],
        ['1', null],
      ],
      [
        ['hexpiretime', 'hf4:h', 'FIELDS', '2', 'a', 'b'],
        [T1, -1],
      ],
      [['object', 'encoding', 'hf4:h'], 'listpackex'],
      [
        ['hgetex', 'hf4:h', 'persist', 'FIELDS', '2', 'a', 'b'],
        ['1', '2'],
      ],
      [
        ['hexpiretime', 'hf4:h', 'FIELDS', '2', 'a', 'b'],
        [-1, -1],
      ],
      [['hgetex', 'hf4:h', 'PX', '0', 'FIELDS', '1', 'c'], ['3']],
      [['hgetall', 'hf4:h'], map('b', '2', 'a', '1')],
      [['hgetex', 'hf4:h', 'EX', '-1', 'FIELDS', '1', 'a'], NEGATIVE],
      [['hgetex', 'hf4:h', 'EX', '70368744178', 'FIELDS', '1', 'a'], tooLate('hgetex')],
      [['hgetex', 'hf4:h', 'EX', 'ten', 'FIELDS', '1', 'a'], NOT_INTEGER],
      [['hgetex', 'hf4:h', 'EX', '10', 'FIELDS', '2', 'a'], MISMATCH],
      [['hgetex', 'hf4:h', 'FOO', 'FIELDS', '1', 'a'], NO_FIELDS],
      [['hgetex', 'hf4:h', 'EX', '10', 'FOO', '1', 'a'], NO_FIELDS],
      [['hgetex', 'hf4:h', 'FIELDS', '0', 'a'], NUMFIELDS],
      [
        ['hgetex', 'hf4:nokey', 'EX', '10', 'FIELDS', '2', 'a', 'b'],
        [null, null],
      ],
      [['hgetex', 'hf4:h', 'FIELDS', '1'], arity('hgetex')],
    ],
  },
  {
    name: 'hsetex: FNX FXX, EXAT, KEEPTTL, a past time, errors in order',
    steps: [
      [['hsetex', 'hf5:h', 'FIELDS', '2', 'a', '1', 'b', '2'], 1],
      [['hgetall', 'hf5:h'], map('a', '1', 'b', '2')],
      [['object', 'encoding', 'hf5:h'], 'listpack'],
      [['hsetex', 'hf5:h', 'FNX', 'FIELDS', '1', 'a', '9'], 0],
      [['hsetex', 'hf5:h', 'FXX', 'FIELDS', '2', 'a', '9', 'c', '9'], 0],
      [['hsetex', 'hf5:h', 'FXX', 'EXAT', t(T1), 'FIELDS', '2', 'a', '10', 'b', '20'], 1],
      [
        ['hexpiretime', 'hf5:h', 'FIELDS', '2', 'a', 'b'],
        [T1, T1],
      ],
      [['hsetex', 'hf5:h', 'KEEPTTL', 'FIELDS', '1', 'a', '11'], 1],
      [['hsetex', 'hf5:h', 'FIELDS', '1', 'b', '21'], 1],
      [
        ['hexpiretime', 'hf5:h', 'FIELDS', '2', 'a', 'b'],
        [T1, -1],
      ],
      [['hgetall', 'hf5:h'], map('a', '11', 'b', '21')],
      [
        ['hsetex', 'hf5:h', 'EX', '10', 'KEEPTTL', 'FIELDS', '1', 'a', '1'],
        err('ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified'),
      ],
      [
        ['hsetex', 'hf5:h', 'FNX', 'FXX', 'FIELDS', '1', 'a', '1'],
        err('ERR Only one of FXX or FNX arguments can be specified'),
      ],
      [['hsetex', 'hf5:h', 'FIELDS', '2', 'a', '1'], arity('hsetex')],
      [['hsetex', 'hf5:h', 'FIELDS', '0', 'a', '1'], err('ERR invalid number of fields')],
      [['hsetex', 'hf5:h', 'BLAH', 'FIELDS', '1', 'a', '1'], err('ERR unknown argument: BLAH')],
      [['hsetex', 'hf5:h', 'EX', 'FIELDS', '1', 'a', '1'], NOT_INTEGER],
      [['hsetex', 'hf5:h', 'EX', '70368744178', 'FIELDS', '1', 'a', '1'], tooLate('hsetex')],
      [['hsetex', 'hf5:h', 'PX', '0', 'FIELDS', '1', 'c', '3'], 1],
      [['hexists', 'hf5:h', 'c'], 0],
      [['hsetex', 'hf5:new', 'FXX', 'FIELDS', '1', 'a', '1'], 0],
      [['exists', 'hf5:new'], 0],
      [['set', 'hf5:s', 'x'], OK],
      [['hsetex', 'hf5:s', 'FIELDS', '1', 'a', '1'], WRONGTYPE],
      // The arguments are checked before the key's type.
      [['hsetex', 'hf5:s', 'BLAH', 'FIELDS', '1', 'a', '1'], err('ERR unknown argument: BLAH')],
      [['hsetex', 'hf5:s', 'FIELDS', '1', 'a'], arity('hsetex')],
    ],
  },
  {
    name: 'hgetdel: values, the hash emptied and deleted, errors',
    steps: [
      [['hset', 'hf6:h', 'a', '1', 'b', '2', 'c', '3'], 3],
      [
        ['hgetdel', 'hf6:h', 'FIELDS', '2', 'a', 'x'],
        ['1', null],
      ],
      [['hgetall', 'hf6:h'], map('b', '2', 'c', '3')],
      [
        ['hgetdel', 'hf6:h', 'FIELDS', '2', 'b', 'c'],
        ['2', '3'],
      ],
      [['exists', 'hf6:h'], 0],
      [['hgetdel', 'hf6:h', 'FIELDS', '1', 'a'], [null]],
      [['hgetdel', 'hf6:h', 'FIELDS', '0', 'a'], NUMFIELDS],
      [['hgetdel', 'hf6:h', 'FIELDS', '2', 'a'], MISMATCH],
      [['hgetdel', 'hf6:h', 'FELDS', '1', 'a'], NO_FIELDS],
      [['hgetdel', 'hf6:h', 'FIELDS', '1'], arity('hgetdel')],
    ],
  },
  {
    name: 'hincrby keeps a field expiry, hset drops it; listpackex to hashtable',
    steps: [
      [['hset', 'hf7:h', 'n', '1'], 1],
      [['hexpireat', 'hf7:h', t(T1), 'FIELDS', '1', 'n'], [1]],
      [['hincrby', 'hf7:h', 'n', '5'], 6],
      [['hexpiretime', 'hf7:h', 'FIELDS', '1', 'n'], [T1]],
      [['hincrbyfloat', 'hf7:h', 'n', '0.5'], '6.5'],
      [['hexpiretime', 'hf7:h', 'FIELDS', '1', 'n'], [T1]],
      [['hset', 'hf7:h', 'n', '7'], 0],
      [['hexpiretime', 'hf7:h', 'FIELDS', '1', 'n'], [-1]],
      [['object', 'encoding', 'hf7:h'], 'listpackex'],
      [['hset', 'hf7:h', 'f', V65], 1],
      [['object', 'encoding', 'hf7:h'], 'hashtable'],
      [
        ['hexpireat', 'hf7:h', t(T1), 'FIELDS', '2', 'f', 'n'],
        [1, 1],
      ],
      [
        ['hexpiretime', 'hf7:h', 'FIELDS', '2', 'f', 'n'],
        [T1, T1],
      ],
      [['hpersist', 'hf7:h', 'FIELDS', '1', 'f'], [1]],
      [
        ['hexpiretime', 'hf7:h', 'FIELDS', '2', 'f', 'n'],
        [-1, T1],
      ],
      [['hlen', 'hf7:h'], 2],
      [['hstrlen', 'hf7:h', 'f'], 65],
    ],
  },
];

/** Every case, then again in RESP3 with its own keys (`rhfN:`). */
export const FIELD_EXPIRY_CASES: readonly FieldExpiryCase[] = CASES.flatMap((c) => [
  c,
  {
    name: `${c.name} (RESP3)`,
    resp3: true,
    steps: c.steps.map(
      ([argv, r]) => [argv.map((a) => a.replace(/^hf(\d+):/, 'rhf$1:')), r] as const,
    ),
  },
]);
