import { MAX_VALUE_LENGTH, type ReadResult, RecordType, type StoreCore } from '@strata/hlog';
import { eqi, parseInteger } from '../../args.js';
import { CommandError, syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { keyMiss } from '../pubsub/keyspace-events.js';
import { SRC_DST } from '../shared/key-positions.js';

const lcsTypeError = () =>
  new CommandError('ERR_WRONGTYPE', 'ERR The specified keys must contain string values');

/** LCS's read: a string's value, null for a missing key, false for a collection. */
type LcsValue = Buffer | null | false;

/** LCS's read: an owned value (a copy when it comes from the log), null when missing, false for a collection. */
function readValue(store: StoreCore, key: Buffer): LcsValue | Promise<LcsValue> {
  const v = store.read(key);
  if (v.status === 'found') {
    if (v.type !== RecordType.STRING) return false;
    return Buffer.from(v.bytes.subarray(v.offset, v.offset + v.length));
  }
  if (v.status === 'notFound') return null;
  return v.pending.then((r: ReadResult) => {
    if (r.status === 'found' && r.type !== RecordType.STRING) return false;
    return r.status === 'found' ? r.value : null;
  });
}

interface LcsOptions {
  idx: boolean;
  len: boolean;
  withMatchLen: boolean;
  minMatchLen: number;
}

function parseLcsOptions(argv: Buffer[]): LcsOptions {
  const o: LcsOptions = { idx: false, len: false, withMatchLen: false, minMatchLen: 0 };
  for (let j = 3; j < argv.length; j++) {
    const a = argv[j]!;
    const more = argv.length - 1 - j;
    if (eqi(a, 'idx')) o.idx = true;
    else if (eqi(a, 'len')) o.len = true;
    else if (eqi(a, 'withmatchlen')) o.withMatchLen = true;
    else if (eqi(a, 'minmatchlen') && more > 0) {
      const m = parseInteger(argv[j + 1]!);
      o.minMatchLen = Math.max(0, m);
      j++;
    } else throw syntaxError();
  }
  if (o.idx && o.len) {
    throw new CommandError(
      'ERR_SYNTAX',
      'ERR If you want both the length and indexes, please just use IDX.',
    );
  }
  return o;
}

/** LCS as Redis 7 computes it (the same DP table and walk, so the same matches). */
function lcsReply(c: Client, a: Buffer, b: Buffer, o: LcsOptions): void {
  const alen = a.length;
  const blen = b.length;
  const w = blen + 1;
  if ((alen + 1) * w * 4 > MAX_VALUE_LENGTH) {
    throw new CommandError(
      'ERR_TOO_LARGE',
      'ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len',
    );
  }
  const dp = new Uint32Array((alen + 1) * w);
  for (let i = 1; i <= alen; i++) {
    const ai = a[i - 1];
    const row = i * w;
    const prev = row - w;
    for (let j = 1; j <= blen; j++) {
      if (ai === b[j - 1]) dp[row + j] = dp[prev + j - 1]! + 1;
      else {
        const l1 = dp[prev + j]!;
        const l2 = dp[row + j - 1]!;
        dp[row + j] = Math.max(l1, l2);
      }
    }
  }
  const total = dp[alen * w + blen]!;
  if (o.len && !o.idx) {
    c.reply.integer(total);
    return;
  }
  const result = Buffer.alloc(total);
  const matches: number[][] = [];
  let idx = total;
  let i = alen;
  let j = blen;
  let aStart = alen;
  let aEnd = 0;
  let bStart = 0;
  let bEnd = 0;
  while (i > 0 && j > 0) {
    let emit = false;
    if (a[i - 1] === b[j - 1]) {
      result[idx - 1] = a[i - 1]!;
      if (aStart === alen) {
        aStart = i - 1;
        aEnd = i - 1;
        bStart = j - 1;
        bEnd = j - 1;
      } else if (aStart === i && bStart === j) {
        aStart--;
        bStart--;
      } else emit = true;
      if (aStart === 0 || bStart === 0) emit = true;
      idx--;
      i--;
      j--;
    } else {
      const l1 = dp[(i - 1) * w + j]!;
      const l2 = dp[i * w + j - 1]!;
      if (l1 > l2) i--;
      else j--;
      if (aStart !== alen) emit = true;
    }
    if (emit) {
      const matchLen = aEnd - aStart + 1;
      if (o.minMatchLen === 0 || matchLen >= o.minMatchLen) {
        matches.push([aStart, aEnd, bStart, bEnd, matchLen]);
      }
      aStart = alen;
    }
  }
  if (!o.idx) {
    c.reply.bulk(result);
    return;
  }
  c.reply.map(2);
  c.reply.bulk('matches');
  c.reply.array(matches.length);
  for (const m of matches) {
    c.reply.array(o.withMatchLen ? 3 : 2);
    c.reply.array(2).integer(m[0]!).integer(m[1]!);
    c.reply.array(2).integer(m[2]!).integer(m[3]!);
    if (o.withMatchLen) c.reply.integer(m[4]!);
  }
  c.reply.bulk('len');
  c.reply.integer(total);
}

function lcs(c: Client, argv: Buffer[]): CommandResult {
  // Both keys are looked up before their types are checked, as in Redis:
  // each missing one is a `keymiss`, in order, whatever comes next.
  const ra = readValue(c.store, argv[1]!);
  let rb: LcsValue | Promise<LcsValue>;
  try {
    rb = readValue(c.store, argv[2]!);
  } catch (e) {
    // The first read, if on the disk, is not needed: its failure must not
    // become an unhandled rejection (which ends the process).
    if (ra instanceof Promise) ra.catch(() => undefined);
    throw e;
  }
  const run = (a: LcsValue, b: LcsValue) => {
    if (a === null) keyMiss(c, argv[1]!);
    if (b === null) keyMiss(c, argv[2]!);
    if (a === false || b === false) throw lcsTypeError();
    const o = parseLcsOptions(argv);
    lcsReply(c, a ?? Buffer.alloc(0), b ?? Buffer.alloc(0), o);
  };
  if (ra instanceof Promise || rb instanceof Promise) {
    return Promise.all([ra, rb]).then(([a, b]) => run(a, b));
  }
  run(ra, rb);
  return undefined;
}

export const lcsCommand: CommandDefinition = {
  name: 'lcs',
  arity: -3,
  flags: ['readonly'],
  ...SRC_DST,
  acl: ['string'],
  group: 'string',
  since: '7.0.0',
  complexity: 'O(N*M) where N and M are the lengths of s1 and s2, respectively',
  summary: 'Finds the longest common substring.',
  handler: lcs,
};
