import { type ReadResult, RecordType } from '@strata/hlog';
import { eqi } from '../../args.js';
import { CommandError, syntaxError, wrongTypeError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult, KeySpec } from '../../server/command-table.js';
import { keyMiss, NotifyClass, notify, publishes } from '../pubsub/keyspace-events.js';
import { bitmapGroup } from '../shared/command-groups.js';
import { ALL_KEYS } from '../shared/key-positions.js';

type BitOp = 'and' | 'or' | 'xor' | 'not';

function parseOp(arg: Buffer): BitOp {
  if (eqi(arg, 'and')) return 'and';
  if (eqi(arg, 'or')) return 'or';
  if (eqi(arg, 'xor')) return 'xor';
  if (eqi(arg, 'not')) return 'not';
  throw syntaxError();
}

/** One source as read: its bytes (owned), missing, or not a string. */
type Source = Buffer | null | false;

const EMPTY = Buffer.alloc(0);

/** A source's owned bytes: a found view is valid only until the next read. */
function readSource(c: Client, key: Buffer): Source | Promise<Source> {
  const v = c.store.read(key);
  if (v.status === 'found') {
    if (v.type !== RecordType.STRING) return false;
    return Buffer.from(v.bytes.subarray(v.offset, v.offset + v.length));
  }
  if (v.status === 'notFound') return null;
  return v.pending.then((r: ReadResult) => {
    if (r.status !== 'found') return null;
    return r.type === RecordType.STRING ? r.value : false;
  });
}

/**
 * The sources in argument order, as Redis's loop of lookupKeyRead: a
 * `keymiss` for each missing one, up to the first that is no string
 * (WRONGTYPE). Keys on the disk are read together, their outcomes then
 * taken in order.
 */
function readSources(c: Client, keys: readonly Buffer[]): Buffer[] | Promise<Buffer[]> {
  const read: (Source | Promise<Source>)[] = [];
  let pending = false;
  try {
    for (const key of keys) {
      const s = readSource(c, key);
      if (s instanceof Promise) pending = true;
      read.push(s);
    }
  } catch (e) {
    // The reads already on the disk are not needed: no unhandled rejection.
    for (const s of read) if (s instanceof Promise) s.catch(() => undefined);
    throw e;
  }
  const finish = (sources: readonly Source[]): Buffer[] => {
    const out: Buffer[] = [];
    for (let i = 0; i < sources.length; i++) {
      const s = sources[i]!;
      if (s === false) throw wrongTypeError();
      if (s === null) keyMiss(c, keys[i]!);
      out.push(s ?? EMPTY);
    }
    return out;
  };
  if (!pending) return finish(read as Source[]);
  return Promise.all(read).then(finish);
}

/** The operation over the sources, each zero-padded to the longest (Redis's bitopCommand). */
export function computeBitOp(op: BitOp, sources: readonly Uint8Array[]): Buffer {
  let max = 0;
  for (const s of sources) if (s.length > max) max = s.length;
  const res = Buffer.alloc(max);
  if (max === 0) return res;
  if (op === 'not') {
    const s = sources[0]!;
    for (let i = 0; i < max; i++) res[i] = ~s[i]! & 0xff;
    return res;
  }
  const first = sources[0]!;
  res.set(first);
  for (let j = 1; j < sources.length; j++) {
    const s = sources[j]!;
    const n = s.length;
    if (op === 'and') {
      for (let i = 0; i < n; i++) res[i]! &= s[i]!;
      res.fill(0, n);
    } else if (op === 'or') {
      for (let i = 0; i < n; i++) res[i]! |= s[i]!;
    } else {
      for (let i = 0; i < n; i++) res[i]! ^= s[i]!;
    }
  }
  return res;
}

/**
 * BITOP op destkey key [key ...]: the operation first (a syntax error, then
 * NOT's single key), then the sources, then the destination: a non-empty
 * result replaces whatever it held (its TTL gone: `new` if it made the key,
 * then `set`), an empty one deletes it (`del` only if it was there). The
 * reply is the result's length.
 */
function bitop(c: Client, argv: Buffer[]): CommandResult {
  const op = parseOp(argv[1]!);
  if (op === 'not' && argv.length !== 4) {
    throw new CommandError('ERR_SYNTAX', 'ERR BITOP NOT must be called with a single source key.');
  }
  const dest = argv[2]!;
  const sources = readSources(c, argv.slice(3));
  if (sources instanceof Promise) return sources.then((s) => store(c, dest, computeBitOp(op, s)));
  return store(c, dest, computeBitOp(op, sources));
}

function store(c: Client, dest: Buffer, value: Buffer): CommandResult {
  const reply = () => {
    c.reply.integer(value.length);
  };
  if (value.length === 0) return removeDest(c, dest, reply);
  // Whether the key was there matters only for `new`: asked only then.
  if (!publishes(c, NotifyClass.new)) return writeDest(c, dest, value, false, reply);
  const p = c.store.probe(dest);
  if (p.status === 'pending') {
    return p.pending.then((r) => writeDest(c, dest, value, r.status !== 'found', reply));
  }
  return writeDest(c, dest, value, p.status !== 'found', reply);
}

function writeDest(
  c: Client,
  dest: Buffer,
  value: Buffer,
  created: boolean,
  reply: () => void,
): CommandResult {
  const done = () => {
    c.collections.invalidate(dest);
    if (created) notify(c, NotifyClass.new, 'new', dest);
    notify(c, NotifyClass.string, 'set', dest);
    reply();
  };
  // A collection the destination held is replaced: its cached copy goes first.
  c.collections.invalidate(dest);
  const v = c.store.upsert(dest, value);
  if (v.status === 'pending') return v.pending.then(done);
  done();
  return undefined;
}

function removeDest(c: Client, dest: Buffer, reply: () => void): CommandResult {
  const done = (deleted: boolean) => {
    if (deleted) notify(c, NotifyClass.generic, 'del', dest);
    reply();
  };
  c.collections.invalidate(dest);
  const v = c.store.remove(dest);
  if (v.status === 'pending') return v.pending.then((r) => done(r.status === 'deleted'));
  done(v.status === 'deleted');
  return undefined;
}

/** Redis's two key specs: the destination written over, the sources read. */
const BITOP_KEY_SPECS: readonly KeySpec[] = [
  { flags: ['OW', 'update'], beginIndex: 2, findRange: { lastKey: 0, keyStep: 1, limit: 0 } },
  { flags: ['RO', 'access'], beginIndex: 3, findRange: { lastKey: -1, keyStep: 1, limit: 0 } },
];

export const bitopCommand: CommandDefinition = {
  name: 'bitop',
  arity: -4,
  flags: ['write', 'denyoom'],
  ...ALL_KEYS,
  firstKey: 2,
  ...bitmapGroup,
  keySpecs: BITOP_KEY_SPECS,
  // Only the destination changes: what WATCH marks.
  changedKeysOf: () => [2],
  since: '2.6.0',
  complexity: 'O(N)',
  summary: 'Perform bitwise operations between strings',
  handler: bitop,
};
