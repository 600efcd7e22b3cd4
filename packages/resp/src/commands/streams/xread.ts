import {
  type CachedStreamBlocks,
  type CollectionLookup,
  latin1,
  loadStreamBlocks,
  MAX_STREAM_ID,
  MIN_STREAM_ID,
  nextStreamId,
  type StreamBlocks,
  type StreamConsumer,
  type StreamGroup,
  type StreamId,
  type StreamValue,
} from '@strata/collections';
import { RecordType } from '@strata/hlog';
import type { ReplyWriter } from '@strata/protocol';
import { eqi, integerOrNaN, parseInteger } from '../../args.js';
import { CommandError, syntaxError, wrongTypeError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { block, mayBlock } from '../blocking/blocking.js';
import { keyMiss, NotifyClass, notify } from '../pubsub/keyspace-events.js';
import { lookupTogether, withOpenDb } from '../shared/collection-access.js';
import { type BlockNeed, streamChanged, withBlocksOf } from './stream-access.js';
import { parseId, STRICT } from './stream-args.js';
import { noGroupError } from './stream-errors.js';
import { claimForm, logForms, setIdForm } from './stream-forms.js';
import { writeEntry, writeId, writeRange } from './stream-replies.js';

/**
 * XREAD and XREADGROUP (Redis 7.0's xreadCommand): served at once from the
 * keys that have something, else blocked (BLOCK) until an XADD to one of
 * them serves the client from the pusher's command (stream-waiters.ts).
 */

/** A blocked read with no COUNT takes at most this many (XREAD_BLOCKED_DEFAULT_COUNT). */
const BLOCKED_DEFAULT_COUNT = 1000;

interface ReadArgs {
  /** 0: no limit. */
  readonly count: number;
  /** -1: no BLOCK; 0: for ever. */
  readonly timeoutMs: number;
  readonly group: Buffer | null;
  readonly consumer: Buffer | null;
  readonly noAck: boolean;
  readonly keys: Buffer[];
  readonly idArgs: Buffer[];
}

function parseTimeoutMs(arg: Uint8Array): number {
  const v = integerOrNaN(arg);
  if (Number.isNaN(v)) {
    throw new CommandError('ERR_NOT_INTEGER', 'ERR timeout is not an integer or out of range');
  }
  if (v < 0) throw new CommandError('ERR_OUT_OF_RANGE', 'ERR timeout is negative');
  return v;
}

function parseRead(argv: Buffer[], group: boolean, inScript: boolean): ReadArgs {
  let count = 0;
  let timeoutMs = -1;
  let groupName: Buffer | null = null;
  let consumer: Buffer | null = null;
  let noAck = false;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    const more = argv.length - i - 1;
    if (eqi(a, 'block') && more > 0) {
      // Redis refuses it from a script rather than ignore it (a script cannot block).
      if (inScript) {
        throw new CommandError(
          'ERR_SYNTAX',
          `ERR ${argv[0]!.toString('latin1')} command is not allowed with BLOCK option from scripts`,
          true,
        );
      }
      timeoutMs = parseTimeoutMs(argv[++i]!);
    } else if (eqi(a, 'count') && more > 0) {
      count = Math.max(0, parseInteger(argv[++i]!));
    } else if (eqi(a, 'streams') && more > 0) {
      const n = argv.length - i - 1;
      if (n % 2 !== 0) {
        throw new CommandError(
          'ERR_SYNTAX',
          "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.",
        );
      }
      if (group && groupName === null) {
        throw new CommandError('ERR_SYNTAX', 'ERR Missing GROUP option for XREADGROUP');
      }
      return {
        count,
        timeoutMs,
        group: groupName,
        consumer,
        noAck,
        keys: argv.slice(i + 1, i + 1 + n / 2),
        idArgs: argv.slice(i + 1 + n / 2),
      };
    } else if (eqi(a, 'group') && more >= 2) {
      if (!group) {
        throw new CommandError(
          'ERR_SYNTAX',
          'ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.',
        );
      }
      groupName = argv[i + 1]!;
      consumer = argv[i + 2]!;
      i += 2;
    } else if (eqi(a, 'noack')) {
      if (!group) {
        throw new CommandError(
          'ERR_SYNTAX',
          'ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.',
        );
      }
      noAck = true;
    } else throw syntaxError();
  }
  throw syntaxError();
}

/** `>`: the entries the group has not delivered yet. */
const NEW_ENTRIES = null;

/** One key of a read, resolved: its stream, its group, what it reads after. */
interface KeyRead {
  readonly key: Buffer;
  readonly stream: StreamValue | null;
  readonly group: StreamGroup | null;
  /** Entries after this ID; NEW_ENTRIES for `>` (the group's last ID when served). */
  readonly after: StreamId | typeof NEW_ENTRIES;
}

function resolveKeys(
  c: Client,
  a: ReadArgs,
  found: readonly CollectionLookup<StreamValue>[],
): KeyRead[] {
  const out: KeyRead[] = [];
  for (let i = 0; i < a.keys.length; i++) {
    const key = a.keys[i]!;
    const r = found[i]!;
    if (r.status === 'wrongType') throw wrongTypeError();
    const s = r.status === 'found' ? r.value : null;
    if (s === null && a.group === null) keyMiss(c, key);
    let group: StreamGroup | null = null;
    if (a.group !== null) {
      group = s?.groups.get(latin1(a.group)) ?? null;
      if (group === null) {
        throw noGroupError(
          `No such key '${key.toString('latin1')}' or consumer group '${a.group.toString('latin1')}' in XREADGROUP with GROUP option`,
        );
      }
    }
    const idArg = a.idArgs[i]!;
    if (idArg.length === 1 && idArg[0] === 0x24) {
      if (a.group !== null) {
        throw new CommandError(
          'ERR_SYNTAX',
          'ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.',
        );
      }
      out.push({ key, stream: s, group, after: s === null ? MIN_STREAM_ID : s.lastId });
      continue;
    }
    if (idArg.length === 1 && idArg[0] === 0x3e) {
      if (a.group === null) {
        throw new CommandError(
          'ERR_SYNTAX',
          'ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.',
        );
      }
      out.push({ key, stream: s, group, after: NEW_ENTRIES });
      continue;
    }
    out.push({ key, stream: s, group, after: parseId(idArg, STRICT) });
  }
  return out;
}

/** The key's header of a read reply: a map entry in RESP3, `[key, ...]` in RESP2. */
function keyHeader(w: ReplyWriter, key: Buffer): void {
  if (w.protocol === 2) w.array(2);
  w.bulk(key);
}

function readHeader(w: ReplyWriter, n: number): void {
  if (w.protocol === 2) w.array(n);
  else w.map(n);
}

/** A group's consumer for a read, created (with its event) when new. */
export function consumerFor(
  c: Client,
  key: Buffer,
  g: StreamGroup,
  name: Buffer,
  now: number,
): StreamConsumer {
  const n = latin1(name);
  let consumer = g.consumer(n, now, false);
  if (consumer === undefined) {
    consumer = g.consumer(n, now, true)!;
    notify(c, NotifyClass.stream, 'xgroup-createconsumer', key);
  }
  consumer.seenTime = now;
  return consumer;
}

/**
 * Serves the new entries of `g` (after its last ID) to `consumer`, at most
 * `count`: the reply, the PEL entries (none with NOACK), the group's
 * counters; returns the replay forms (an XCLAIM per PEL entry, then the
 * group's last ID and entries read), as Redis propagates a group read.
 */
function serveNew(
  c: Client,
  key: Buffer,
  s: StreamValue,
  blocks: StreamBlocks,
  g: StreamGroup,
  consumer: StreamConsumer,
  groupName: Buffer,
  count: number,
  noAck: boolean,
  forms: Buffer[][],
): number {
  const now = Date.now();
  const logging = c.server.commandLog !== null && !c.replay;
  const from = nextStreamId(g.lastId);
  if (from === null) {
    c.reply.array(0);
    return 0;
  }
  const n = writeRange(c.reply, s, blocks, from, MAX_STREAM_ID, count, false, (id) => {
    s.delivered(g, id);
    if (noAck) return;
    const e = g.deliver(id, consumer, now);
    consumer.activeTime = now;
    if (logging) forms.push(claimForm(key, groupName, g, id, e));
  });
  if (n > 0 && logging) forms.push(setIdForm(key, groupName, g));
  return n;
}

/** A consumer's own pending IDs after `after`, at most `count` (0: all): what a history read serves. */
function historyOf(
  g: StreamGroup,
  consumer: StreamConsumer | undefined,
  after: StreamId,
  count: number,
): StreamId[] {
  const out: StreamId[] = [];
  const from = nextStreamId(after);
  if (consumer === undefined || from === null) return out;
  g.forPending(from, MAX_STREAM_ID, (e) => {
    if (e.consumer === consumer) out.push(e.id);
    return count === 0 || out.length < count;
  });
  return out;
}

/** A history read's reply: the consumer's pending entries `ids`, deleted ones as `[id, nil]`. */
function serveHistory(
  c: Client,
  s: StreamValue,
  blocks: StreamBlocks,
  g: StreamGroup,
  ids: StreamId[],
): void {
  const now = Date.now();
  c.reply.array(ids.length);
  for (const id of ids) {
    const entry = s.entry(id, blocks);
    if (entry === null) {
      c.reply.array(2);
      writeId(c.reply, id);
      c.reply.nullArray();
    } else writeEntry(c.reply, entry.block, entry.index);
    const e = g.pending(id)!;
    e.deliveryCount++;
    e.deliveryTime = now;
  }
}

function read(c: Client, argv: Buffer[], isGroup: boolean): CommandResult {
  const a = parseRead(argv, isGroup, c.inScript);
  return withOpenDb(c, () =>
    lookupTogether<StreamValue>(c, a.keys, RecordType.STREAM, isGroup, (found) => {
      const reads = resolveKeys(c, a, found);
      return serveOrBlock(c, a, reads, () => read(c, argv, isGroup));
    }),
  );
}

function servesNow(r: KeyRead): boolean {
  const s = r.stream;
  if (s === null) return false;
  if (r.group !== null) {
    if (r.after !== NEW_ENTRIES) return true;
    return s.size > 0 && s.lastEntryId() > r.group.lastId;
  }
  return s.size > 0 && s.lastEntryId() > r.after!;
}

/** What a read serves now needs from a stream: the blocks of its entries, and a history's IDs. */
interface Serving {
  readonly read: KeyRead;
  readonly need: BlockNeed;
  readonly history: StreamId[] | null;
}

function servingOf(a: ReadArgs, r: KeyRead): Serving {
  const s = r.stream!;
  const count = a.count;
  if (r.group !== null && r.after !== NEW_ENTRIES) {
    const consumer = r.group.consumer(latin1(a.consumer!), 0, false);
    const history = historyOf(r.group, consumer, r.after, count);
    return { read: r, need: { stream: s, refs: s.refsOf(history), key: r.key }, history };
  }
  const from = nextStreamId(r.group === null ? r.after! : r.group.lastId);
  const refs = from === null ? [] : s.refsFor(from, MAX_STREAM_ID, false, count);
  return { read: r, need: { stream: s, refs, key: r.key }, history: null };
}

function serveOrBlock(
  c: Client,
  a: ReadArgs,
  reads: KeyRead[],
  again: () => CommandResult,
): CommandResult {
  const serving: Serving[] = [];
  for (const r of reads) {
    if (r.stream === null && a.group === null) keyMiss(c, r.key);
    if (servesNow(r)) serving.push(servingOf(a, r));
  }
  if (serving.length > 0) {
    return withBlocksOf(
      c,
      serving.map((x) => x.need),
      (blocks) => serve(c, a, serving, blocks),
      again,
    );
  }
  if (a.timeoutMs === -1 || !mayBlock(c)) {
    c.reply.nullArray();
    if (a.group !== null) c.propagate();
    return undefined;
  }
  return blockRead(c, a, reads);
}

function serve(
  c: Client,
  a: ReadArgs,
  serving: readonly Serving[],
  blocks: readonly CachedStreamBlocks[],
): CommandResult {
  const forms: Buffer[][] = [];
  const now = Date.now();
  readHeader(c.reply, serving.length);
  for (let i = 0; i < serving.length; i++) {
    const r = serving[i]!.read;
    const s = r.stream!;
    const b = blocks[i]!;
    keyHeader(c.reply, r.key);
    if (r.group === null) {
      writeRange(c.reply, s, b, nextStreamId(r.after!)!, MAX_STREAM_ID, a.count, false);
      continue;
    }
    const consumer = consumerFor(c, r.key, r.group, a.consumer!, now);
    const history = serving[i]!.history;
    if (history === null) {
      serveNew(c, r.key, s, b, r.group, consumer, a.group!, a.count, a.noAck, forms);
    } else serveHistory(c, s, b, r.group, history);
    streamChanged(c, r.key, s);
  }
  if (a.group !== null) logForms(c, forms);
  return undefined;
}

/** Blocks until an XADD (or a change to a group) serves one of the keys. */
function blockRead(c: Client, a: ReadArgs, reads: KeyRead[]): CommandResult {
  const count = a.count === 0 ? BLOCKED_DEFAULT_COUNT : a.count;
  const groupName = a.group === null ? null : latin1(a.group);
  return block(c, a.keys, a.timeoutMs, (key, by) => {
    const r = reads.find((x) => x.key.equals(key));
    if (r === undefined) return null;
    const got = by.collections.get<StreamValue>(key, RecordType.STREAM);
    if (got instanceof Promise) return null;
    if (got.status !== 'found') {
      // The stream went (deleted, or replaced by another type): a group
      // read cannot go on; a plain XREAD waits for a stream to come back.
      if (groupName === null) return null;
      c.replyError(new CommandError('ERR_UNBLOCKED', 'UNBLOCKED the stream key no longer exists'));
      return [];
    }
    const s = got.value;
    const g = groupName === null ? null : s.groups.get(groupName);
    if (g === undefined) {
      c.replyError(noGroupError('the consumer group this client was blocked on no longer exists'));
      return [];
    }
    const after = g === null ? r.after! : g.lastId;
    if (!(s.lastId > after)) return null;
    const from = nextStreamId(after);
    // The new entries are in the tail, or in a block the pusher just sealed
    // (cached). Should the cache have let one go (a cache smaller than a
    // block, several XADDs in one EXEC), the client stays blocked for the
    // next signal rather than serve in two steps.
    const blocks =
      from === null
        ? null
        : loadStreamBlocks(by.collections, s, s.refsFor(from, MAX_STREAM_ID, false, count));
    if (blocks instanceof Promise) return null;
    readHeader(c.reply, 1);
    keyHeader(c.reply, key);
    if (from === null || blocks === null) {
      c.reply.array(0);
      return [];
    }
    if (g === null) {
      writeRange(c.reply, s, blocks, from, MAX_STREAM_ID, count, false);
      return [];
    }
    const forms: Buffer[][] = [];
    const consumer = consumerFor(c, key, g, a.consumer!, Date.now());
    serveNew(c, key, s, blocks, g, consumer, a.group!, count, a.noAck, forms);
    streamChanged(by, key, s);
    return forms;
  });
}

export function xread(c: Client, argv: Buffer[]): CommandResult {
  return read(c, argv, false);
}

export function xreadgroup(c: Client, argv: Buffer[]): CommandResult {
  return read(c, argv, true);
}
