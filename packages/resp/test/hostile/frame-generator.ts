import type { Prng } from '@strata/io';
import { encodeCommand } from '@strata/protocol';

/**
 * Hostile request frames for the fuzz harness: valid commands (some of them
 * mutated), and every kind of malformed input a client can send. Everything
 * comes from a seeded Prng, so a frame sequence is reproduced from its seed.
 */
export type FrameKind =
  | 'valid'
  | 'inline'
  | 'mutated'
  | 'truncated'
  | 'huge-length'
  | 'negative-length'
  | 'non-numeric-length'
  | 'nested'
  | 'inline-junk'
  | 'binary-junk'
  | 'long-line'
  | 'big-announced'
  | 'empty';

export interface Frame {
  readonly kind: FrameKind;
  readonly bytes: Buffer;
}

export type FrameWeights = Readonly<Record<FrameKind, number>>;

/**
 * Mostly well-formed frames, so a connection lives for a while (a malformed
 * frame usually ends it with a protocol error, as it does in Redis).
 */
export const DEFAULT_WEIGHTS: FrameWeights = {
  valid: 62,
  inline: 8,
  mutated: 8,
  truncated: 2,
  'huge-length': 1.5,
  'negative-length': 1.5,
  'non-numeric-length': 1.5,
  nested: 1.5,
  'inline-junk': 4,
  'binary-junk': 2,
  'long-line': 0.05,
  'big-announced': 0.4,
  empty: 3,
};

export interface FrameGeneratorOptions {
  /** Keys are `<keyPrefix><n>`, n below `keySpace`. Default `fz:` and 512. */
  readonly keyPrefix?: string;
  readonly keySpace?: number;
  /** The server's proto-max-bulk-len: lengths just above it are tried. */
  readonly maxBulkLength: number;
  readonly weights?: FrameWeights;
  /** Hash, set, sorted set and list commands too (a quarter of the commands). Default true. */
  readonly collections?: boolean;
}

type Arg = string | Buffer;

/** Counts and lengths that are numbers no parser should take (or just barely should). */
const HUGE = [
  '2147483647',
  '2147483648',
  '4294967296',
  '9223372036854775807',
  '9223372036854775808',
  '18446744073709551616',
  '99999999999999999999999999999',
];
const NEGATIVE = [
  '-1',
  '-2',
  '-100',
  '-2147483648',
  '-9223372036854775808',
  '-9223372036854775809',
];
const NON_NUMERIC = [
  '',
  'abc',
  '1x',
  'x1',
  '+5',
  ' 5',
  '5 ',
  '0x10',
  '1.5',
  '1e3',
  '--1',
  '00',
  '007',
  '-0',
  '\u0663',
  '5\t',
  '\x00',
];
const SPECIAL_BYTES = Buffer.from('*$\r\n:+-_%~>#!=,(|0123456789 "\'\\\x00\xff');

export class FrameGenerator {
  private readonly keyPrefix: string;
  private readonly keySpace: number;
  private readonly maxBulkLength: number;
  private readonly kinds: FrameKind[];
  private readonly cumulative: number[];
  private readonly total: number;
  private readonly collections: boolean;

  constructor(
    private readonly prng: Prng,
    options: FrameGeneratorOptions,
  ) {
    this.keyPrefix = options.keyPrefix ?? 'fz:';
    this.keySpace = options.keySpace ?? 512;
    this.maxBulkLength = options.maxBulkLength;
    this.collections = options.collections ?? true;
    const weights = options.weights ?? DEFAULT_WEIGHTS;
    this.kinds = Object.keys(weights) as FrameKind[];
    this.cumulative = [];
    let sum = 0;
    for (const k of this.kinds) {
      sum += weights[k];
      this.cumulative.push(sum);
    }
    this.total = sum;
  }

  next(): Frame {
    const r = this.prng.next() * this.total;
    let i = 0;
    while (i < this.cumulative.length - 1 && r >= this.cumulative[i]!) i++;
    const kind = this.kinds[i]!;
    return { kind, bytes: this.make(kind) };
  }

  make(kind: FrameKind): Buffer {
    switch (kind) {
      case 'valid':
        return encodeCommand(this.command());
      case 'inline':
        return this.inline(this.command());
      case 'mutated':
        return this.mutate(encodeCommand(this.command()));
      case 'truncated': {
        const b = encodeCommand(this.command());
        return b.subarray(0, this.prng.nextInt(b.length));
      }
      case 'huge-length':
        return this.withLength(this.pick([...HUGE, String(this.maxBulkLength + 1)]));
      case 'negative-length':
        return this.withLength(this.pick(NEGATIVE));
      case 'non-numeric-length':
        return this.withLength(this.pick(NON_NUMERIC));
      case 'nested':
        return this.nested();
      case 'inline-junk':
        return this.inlineJunk();
      case 'binary-junk':
        return this.bytes(1 + this.prng.nextInt(256));
      case 'long-line':
        return this.longLine();
      case 'big-announced':
        return this.bigAnnounced();
      case 'empty':
        return Buffer.from(
          this.pick(['\r\n', '\n', '*0\r\n', '*-1\r\n', '   \r\n', '\t\n', '*-7\r\n']),
        );
    }
  }

  // ---- pieces -------------------------------------------------------------------

  private pick<T>(xs: readonly T[]): T {
    return xs[this.prng.nextInt(xs.length)]!;
  }

  private chance(p: number): boolean {
    return this.prng.next() < p;
  }

  private bytes(n: number): Buffer {
    return Buffer.from(this.prng.fill(new Uint8Array(n)));
  }

  key(): Arg {
    if (this.chance(0.03)) return this.bytes(1 + this.prng.nextInt(24));
    return `${this.keyPrefix}${this.prng.nextInt(this.keySpace)}`;
  }

  value(): Arg {
    const r = this.prng.next();
    if (r < 0.3) return String(this.prng.nextRange(-1000, 100000));
    if (r < 0.97) return this.bytes(this.prng.nextInt(200));
    return this.bytes(200 + this.prng.nextInt(8000));
  }

  private int(): string {
    const r = this.prng.next();
    if (r < 0.7) return String(this.prng.nextRange(-100, 1000));
    if (r < 0.9) return String(this.prng.nextRange(-2_000_000_000, 2_000_000_000));
    return this.pick([...HUGE, ...NEGATIVE, ...NON_NUMERIC, '3.14', 'inf', '-inf', 'nan']);
  }

  private small(max: number): string {
    return String(this.prng.nextInt(max));
  }

  private keys(min: number): Arg[] {
    const n = min + this.prng.nextInt(6);
    return Array.from({ length: n }, () => this.key());
  }

  /**
   * A command the server knows (or a near miss: unknown names, wrong arity),
   * with no effect beyond the fuzz keys: nothing that closes the connection,
   * flushes, saves, shuts down or changes the configuration.
   */
  command(): Arg[] {
    const k = this.key();
    const v = this.value();
    if (this.collections && this.chance(0.25)) return this.collectionCommand(k, v);
    switch (this.prng.nextInt(60)) {
      case 0:
        return ['PING'];
      case 1:
        return ['PING', v];
      case 2:
        return ['ECHO', v];
      case 3:
      case 4:
      case 5:
        return ['SET', k, v];
      case 6:
        return ['SET', k, v, this.pick(['EX', 'PX', 'EXAT', 'PXAT']), this.int()];
      case 7:
        return ['SET', k, v, this.pick(['NX', 'XX', 'GET', 'KEEPTTL', 'NX GET', 'XX']), 'GET'];
      case 8:
      case 9:
      case 10:
        return ['GET', k];
      case 11:
        return [this.pick(['GETDEL', 'STRLEN', 'TYPE', 'TTL', 'PTTL', 'PERSIST', 'EXPIRETIME']), k];
      case 12:
        return ['GETEX', k, this.pick(['PERSIST', 'EX', 'PX']), this.int()];
      case 13:
        return [this.pick(['GETSET', 'SETNX', 'APPEND']), k, v];
      case 14:
        return [this.pick(['SETEX', 'PSETEX']), k, this.int(), v];
      case 15:
        return ['MGET', ...this.keys(1)];
      case 16: {
        const args: Arg[] = [this.pick(['MSET', 'MSETNX'])];
        const n = 1 + this.prng.nextInt(5);
        for (let i = 0; i < n; i++) args.push(this.key(), this.value());
        return args;
      }
      case 17:
        return [this.pick(['DEL', 'UNLINK', 'EXISTS', 'TOUCH']), ...this.keys(1)];
      case 18:
        return [this.pick(['INCR', 'DECR']), k];
      case 19:
        return [this.pick(['INCRBY', 'DECRBY']), k, this.int()];
      case 20:
        return ['INCRBYFLOAT', k, this.pick(['1.5', '-0.25', '1e3', 'abc', '5.0e-3', this.int()])];
      case 21:
        return ['APPEND', k, v];
      case 22:
        return [this.pick(['GETRANGE', 'SUBSTR']), k, this.int(), this.int()];
      case 23:
        return ['SETRANGE', k, this.small(4096), v];
      case 24:
        return ['SETBIT', k, this.small(32768), this.pick(['0', '1', '2', 'x'])];
      case 25:
        return ['GETBIT', k, this.int()];
      case 26:
        return ['BITCOUNT', k, this.int(), this.int(), this.pick(['BIT', 'BYTE'])];
      case 27:
        return ['LCS', k, this.key(), this.pick(['LEN', 'IDX', 'WITHMATCHLEN'])];
      case 28:
        return [this.pick(['EXPIRE', 'PEXPIRE', 'EXPIREAT', 'PEXPIREAT']), k, this.int()];
      case 29:
        return ['EXPIRE', k, this.int(), this.pick(['NX', 'XX', 'GT', 'LT', 'ZZ'])];
      case 30:
        return [this.pick(['RENAME', 'RENAMENX']), k, this.key()];
      case 31:
        return ['COPY', k, this.key(), 'REPLACE'];
      case 32:
        return ['OBJECT', this.pick(['ENCODING', 'REFCOUNT', 'IDLETIME', 'FREQ', 'NOPE']), k];
      case 33:
        return ['SELECT', this.pick(['0', '0', '1', '2', '16', '-1', 'x'])];
      case 34:
        return ['DBSIZE'];
      case 35:
        return ['SCAN', this.int(), 'COUNT', this.small(50), 'MATCH', `${this.keyPrefix}1*`];
      case 36:
        return ['TIME'];
      case 37:
        return ['MULTI'];
      case 38:
        return ['EXEC'];
      case 39:
        return ['DISCARD'];
      case 40:
        return ['WATCH', ...this.keys(1)];
      case 41:
        return ['UNWATCH'];
      case 42:
        return ['HELLO', this.pick(['2', '3', '3', '4', 'x'])];
      case 43:
        return ['CLIENT', this.pick(['ID', 'GETNAME', 'INFO', 'NOPE'])];
      case 44:
        return ['CLIENT', 'SETNAME', this.pick(['fuzz', 'a b', '', 'x\ny', v])];
      case 45:
        return [
          'COMMAND',
          this.pick(['COUNT', 'INFO', 'DOCS', 'GETKEYS']),
          this.pick(['get', 'set', 'x']),
        ];
      case 46:
        return ['CONFIG', 'GET', this.pick(['maxclients', 'proto-max-bulk-len', 'dir', '*max*'])];
      case 47:
        return [this.pick(['NOSUCHCMD', 'GETT', 'SETT', 'gEt', 'xyz']), ...this.keys(0)];
      case 48:
        return [this.pick(['GET', 'SET', 'INCRBY', 'ECHO', 'MSET', 'EXPIRE'])];
      case 49:
        return ['GET', k, this.key()];
      case 50:
        return [this.bytes(1 + this.prng.nextInt(12)), k];
      case 51:
        return ['SET', k, v, this.pick(['EX', 'PX']), this.pick(NEGATIVE)];
      case 52:
        return ['MSET', k];
      case 53:
        return ['AUTH', this.pick(['x', 'default'])];
      case 54:
        return ['ECHO', this.bytes(this.prng.nextInt(4000))];
      default:
        return [
          this.pick(['GET', 'SET', 'EXISTS', 'INCR', 'DEL']),
          k,
          ...(this.chance(0.5) ? [v] : []),
        ];
    }
  }

  /**
   * Hash, set, sorted set and list commands on the same keys (so WRONGTYPE
   * meets the string commands). No blocking ones: their replies wait.
   */
  private collectionCommand(k: Arg, v: Arg): Arg[] {
    const m = this.value();
    switch (this.prng.nextInt(16)) {
      case 0:
        return ['HSET', k, m, v, ...(this.chance(0.3) ? [this.value(), this.value()] : [])];
      case 1:
        return [this.pick(['HGET', 'HDEL', 'HEXISTS', 'HSTRLEN']), k, m];
      case 2:
        return [
          this.pick(['HGETALL', 'HLEN', 'HKEYS', 'HVALS', 'SMEMBERS', 'SCARD', 'ZCARD', 'LLEN']),
          k,
        ];
      case 3:
        return ['HINCRBY', k, m, this.int()];
      case 4:
        return [this.pick(['SADD', 'SREM']), k, m, ...(this.chance(0.3) ? [this.value()] : [])];
      case 5:
        return [this.pick(['SISMEMBER', 'SMISMEMBER']), k, m];
      case 6:
        return ['SPOP', k, ...(this.chance(0.5) ? [this.small(5)] : [])];
      case 7:
        return ['ZADD', k, this.pick(['1', '-2.5', '1e3', 'inf', 'nan', this.int()]), m];
      case 8:
        return [this.pick(['ZSCORE', 'ZRANK', 'ZREM']), k, m];
      case 9:
        return ['ZRANGE', k, this.int(), this.int(), ...(this.chance(0.5) ? ['WITHSCORES'] : [])];
      case 10:
        return [this.pick(['ZINCRBY']), k, this.int(), m];
      case 11:
        return [this.pick(['LPUSH', 'RPUSH', 'LPUSHX']), k, m, ...(this.chance(0.3) ? [v] : [])];
      case 12:
        return [this.pick(['LPOP', 'RPOP']), k, ...(this.chance(0.3) ? [this.small(5)] : [])];
      case 13:
        return ['LRANGE', k, this.int(), this.int()];
      case 14:
        return [this.pick(['LINDEX', 'LSET']), k, this.int(), ...(this.chance(0.5) ? [m] : [])];
      default:
        return [this.pick(['HSCAN', 'SSCAN', 'ZSCAN']), k, '0', 'COUNT', this.small(20)];
    }
  }

  /** A command typed as a telnet user would: quoted where it must be. */
  inline(argv: Arg[]): Buffer {
    const parts = argv.map((a) => {
      const b = typeof a === 'string' ? Buffer.from(a) : a;
      let plain = b.length > 0;
      for (const c of b) if (c <= 0x20 || c >= 0x7f || c === 0x22 || c === 0x27) plain = false;
      if (plain && !(b[0] === 0x2a && this.chance(0.5))) return b.toString('latin1');
      let s = '"';
      for (const c of b) {
        if (c === 0x22 || c === 0x5c) s += `\\${String.fromCharCode(c)}`;
        else if (c >= 0x20 && c < 0x7f) s += String.fromCharCode(c);
        else s += `\\x${c.toString(16).padStart(2, '0')}`;
      }
      return `${s}"`;
    });
    return Buffer.from(`${parts.join(' ')}${this.chance(0.5) ? '\r\n' : '\n'}`, 'latin1');
  }

  /** 1 to 3 mutations of a well-formed frame. */
  mutate(frame: Buffer): Buffer {
    let b = frame;
    const n = 1 + this.prng.nextInt(3);
    for (let i = 0; i < n && b.length > 0; i++) {
      const at = this.prng.nextInt(b.length);
      switch (this.prng.nextInt(8)) {
        case 0:
          b = Buffer.from(b);
          b[at] = this.prng.nextInt(256);
          break;
        case 1:
          b = Buffer.from(b);
          b[at] = SPECIAL_BYTES[this.prng.nextInt(SPECIAL_BYTES.length)]!;
          break;
        case 2:
          b = Buffer.concat([
            b.subarray(0, at),
            this.bytes(1 + this.prng.nextInt(8)),
            b.subarray(at),
          ]);
          break;
        case 3:
          b = Buffer.concat([b.subarray(0, at), b.subarray(at + 1 + this.prng.nextInt(8))]);
          break;
        case 4: {
          const len = 1 + this.prng.nextInt(16);
          b = Buffer.concat([
            b.subarray(0, at + len),
            b.subarray(at, at + len),
            b.subarray(at + len),
          ]);
          break;
        }
        case 5:
          b = this.replaceNumber(b);
          break;
        case 6:
          b = Buffer.from(
            b.toString('latin1').replace('\r\n', this.pick(['\n', '\r', '', '\r\r\n'])),
            'latin1',
          );
          break;
        default:
          b = b.subarray(0, at);
          break;
      }
    }
    return b;
  }

  /** Replaces one `*N` or `$N` count with a hostile number. */
  private replaceNumber(b: Buffer): Buffer {
    const s = b.toString('latin1');
    const counts = [...s.matchAll(/[*$](\d+)/g)];
    if (counts.length === 0) return b;
    const m = this.pick(counts);
    const start = m.index! + 1;
    const text = this.pick([
      ...HUGE,
      ...NEGATIVE,
      ...NON_NUMERIC,
      String(Number(m[1]) + 1),
      String(Math.max(0, Number(m[1]) - 1)),
      String(this.maxBulkLength),
    ]);
    return Buffer.from(s.slice(0, start) + text + s.slice(start + m[1]!.length), 'latin1');
  }

  /** A frame whose multibulk count or one bulk length is `text`. */
  private withLength(text: string): Buffer {
    if (this.chance(0.4)) return Buffer.from(`*${text}\r\n$4\r\nPING\r\n`, 'latin1');
    return Buffer.from(`*2\r\n$3\r\nGET\r\n$${text}\r\nkey\r\n`, 'latin1');
  }

  /** Aggregates where only bulk strings are allowed: `*` inside `*`, RESP3 types. */
  private nested(): Buffer {
    const r = this.prng.nextInt(4);
    if (r === 0) {
      const depth = 1 + this.prng.nextInt(2000);
      return Buffer.from(`${'*1\r\n'.repeat(depth)}$4\r\nPING\r\n`);
    }
    if (r === 1) return Buffer.from('*2\r\n$3\r\nGET\r\n*1\r\n$1\r\nk\r\n');
    const t = this.pick(['*', '%', '~', '>', '|', ':', '+', '-', '_', '#', ',', '(', '=', '!']);
    return Buffer.from(`*2\r\n$4\r\nECHO\r\n${t}1\r\n$1\r\nx\r\n`);
  }

  private inlineJunk(): Buffer {
    const alphabet = 'abcSETGET  "\'\\x0a\\n\\\\\t{}*$-+:01';
    const n = 1 + this.prng.nextInt(80);
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[this.prng.nextInt(alphabet.length)];
    if (s.startsWith('*')) s = s.slice(1);
    return Buffer.from(`${s}${this.pick(['\r\n', '\n', '"\n', "'\r\n", '" x\n'])}`, 'latin1');
  }

  /** Past the 64 KiB line limit with no terminator (inline, `*N`, `$N`). */
  private longLine(): Buffer {
    const n = 64 * 1024 + 1 + this.prng.nextInt(8192);
    const r = this.prng.nextInt(3);
    if (r === 0) return Buffer.alloc(n, 'x');
    if (r === 1) return Buffer.concat([Buffer.from('*'), Buffer.alloc(n, '1')]);
    return Buffer.concat([Buffer.from('*1\r\n$'), Buffer.alloc(n, '9')]);
  }

  /** A valid but large bulk announced and only begun: the server must wait, holding what arrived. */
  private bigAnnounced(): Buffer {
    const len = this.pick([65536, 1 << 20, this.maxBulkLength]);
    return Buffer.concat([
      Buffer.from(`*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$${len}\r\n`),
      this.bytes(this.prng.nextInt(100)),
    ]);
  }
}
