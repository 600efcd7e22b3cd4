import {
  type CachedStreamBlocks,
  formatStreamId as formatId,
  MAX_STREAM_ID,
  MIN_STREAM_ID,
  nextAutoStreamId,
  nextStreamId,
  type StreamBlockRef,
  type StreamId,
  StreamValue,
  sameMs,
  seqIsMax,
} from '@strata/collections';
import { eqi, parseInteger } from '../../args.js';
import { syntaxError, wrongArityError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { NotifyClass, notify } from '../pubsub/keyspace-events.js';
import { whenWritten } from '../shared/collection-access.js';
import {
  bothWritten,
  createStream,
  readStream,
  streamChanged,
  withBlocks,
  withBlocksArg,
  withStream,
  withStreamArg,
} from './stream-access.js';
import {
  AUTO_ID,
  finishTrim,
  parseId,
  parseTrimOption,
  parseXaddId,
  STRICT,
  type Trim,
  trimParse,
  type XaddId,
} from './stream-args.js';
import { noSuchKeyError, streamError } from './stream-errors.js';
import { writeId } from './stream-replies.js';
import { signalStream } from './stream-waiters.js';

const XADD = Buffer.from('XADD');
const XTRIM = Buffer.from('XTRIM');
const MAXLEN = Buffer.from('MAXLEN');
const EQ = Buffer.from('=');

/** The sealed block `trim` cuts inside, as a list (empty: none), `extra` entries appended first. */
function trimNeeds(s: StreamValue, trim: Trim, extra: number): StreamBlockRef[] {
  if (trim.strategy === 'none') return NO_REFS;
  const r = s.trimPlan(trim, extra);
  return r === null ? NO_REFS : [r];
}

const NO_REFS: StreamBlockRef[] = [];

/** The ID an append gets (streamAppendItem), or an error for one not above the last. */
function newId(c: Client, s: StreamValue, given: XaddId): StreamId {
  const last = s.lastId;
  let id: StreamId | null;
  if (given.kind === 'auto') {
    // Above the last by construction (null only past the largest ID).
    id = nextAutoStreamId(last, c.startedAt());
    if (id === null) throw tooSmallError();
    return id;
  }
  if (given.kind === 'ms') {
    if (sameMs(given.ms, last)) {
      if (seqIsMax(last)) throw tooSmallError();
      id = nextStreamId(last);
    } else id = given.ms;
  } else id = given.id;
  if (id === null || id <= last) throw tooSmallError();
  return id;
}

const tooSmallError = () =>
  streamError('The ID specified in XADD is equal or smaller than the target stream top item');

/** The replay form of a trim: exact, to the length it left (an AOF replays `~` the same way). */
function trimForm(key: Buffer, s: StreamValue): Buffer[] {
  return [XTRIM, key, MAXLEN, EQ, Buffer.from(String(s.size))];
}

// ---- XADD ------------------------------------------------------------------------------

/** An append's reply and events, once its writes are in (no closure when they already are). */
function added(c: Client, key: Buffer, id: StreamId, created: boolean, trimmed: number): void {
  writeId(c.reply, id);
  if (created) notify(c, NotifyClass.new, 'new', key);
  notify(c, NotifyClass.stream, 'xadd', key);
  if (trimmed > 0) notify(c, NotifyClass.stream, 'xtrim', key);
  signalStream(c, key, null);
}

function xadd(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  const t = trimParse();
  let noMkStream = false;
  let i = 2;
  let given: XaddId | null = null;
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.length === 1 && a[0] === 0x2a) break;
    const next = parseTrimOption(argv, i, t);
    if (next !== -1) {
      i = next - 1;
      continue;
    }
    if (eqi(a, 'nomkstream')) {
      noMkStream = true;
      continue;
    }
    given = parseXaddId(a);
    break;
  }
  given ??= AUTO_ID;
  const trim = finishTrim(t);
  const fieldsAt = i + 1;
  const nFields = argv.length - fieldsAt;
  if (nFields < 2 || nFields % 2 === 1) throw wrongArityError('xadd');
  if (given.kind === 'explicit' && given.id === MIN_STREAM_ID) {
    throw streamError('The ID specified in XADD must be greater than 0-0');
  }
  const a: Append = {
    c,
    argv,
    key,
    fieldsAt,
    given,
    trim,
    noMkStream,
    found: null,
    stream: null,
    id: MIN_STREAM_ID,
  };
  return withStreamArg(c, key, appendTo, a);
}

/**
 * One XADD as parsed, then as decided (its stream and ID): what its steps
 * take as their argument, one object where closures would be several.
 */
interface Append {
  readonly c: Client;
  readonly argv: Buffer[];
  readonly key: Buffer;
  readonly fieldsAt: number;
  readonly given: XaddId;
  readonly trim: Trim;
  readonly noMkStream: boolean;
  found: StreamValue | null;
  stream: StreamValue | null;
  id: StreamId;
}

/** XADD with its stream looked up: the ID decided, then the blocks a trim needs. */
function appendTo(found: StreamValue | null, a: Append): CommandResult {
  const c = a.c;
  if (found === null && a.noMkStream) {
    c.reply.null();
    return undefined;
  }
  const s = found ?? new StreamValue();
  if (s.lastId === MAX_STREAM_ID) {
    throw streamError('The stream has exhausted the last possible ID, unable to add more items');
  }
  a.found = found;
  a.stream = s;
  a.id = newId(c, s, a.given);
  return withBlocksArg(c, s, trimNeeds(s, a.trim, 1), appendWith, a, xadd, a.argv, a.key);
}

/** XADD's change, in one step with the blocks it needed: append, trim, seal, log, reply. */
function appendWith(blocks: CachedStreamBlocks, a: Append): CommandResult {
  const { c, key, argv, fieldsAt, trim, id, found } = a;
  const s = a.stream!;
  s.append(id, argv, fieldsAt);
  const trimmed = trim.strategy === 'none' ? 0 : s.trim(trim, blocks);
  s.sealIfFull(blocks);
  const head = found === null ? createStream(c, key, s) : streamChanged(c, key, s);
  if (c.server.commandLog !== null && !c.replay) {
    const form = [XADD, key, ...(a.noMkStream ? [Buffer.from('NOMKSTREAM')] : [])];
    form.push(Buffer.from(formatId(id)), ...argv.slice(fieldsAt));
    c.propagate(...form);
    if (trimmed > 0) c.propagate(...trimForm(key, s));
  }
  const created = found === null;
  const written = bothWritten(head, blocks.written());
  if (written === undefined) {
    added(c, key, id, created, trimmed);
    return undefined;
  }
  return written.then(() => added(c, key, id, created, trimmed));
}

// ---- XTRIM -----------------------------------------------------------------------------

function xtrim(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  const t = trimParse();
  for (let i = 2; i < argv.length; ) {
    const next = parseTrimOption(argv, i, t);
    if (next === -1) throw syntaxError();
    i = next;
  }
  if (t.limitGiven && t.strategy === 'none') finishTrim(t);
  if (t.strategy === 'none') throw syntaxError();
  const trim = finishTrim(t);
  return withStream(c, key, (s) => {
    if (s === null) {
      c.reply.integer(0);
      return undefined;
    }
    if (trim.strategy === 'none') throw syntaxError();
    return withBlocks(
      c,
      s,
      trimNeeds(s, trim, 0),
      (blocks) => {
        const n = s.trim(trim, blocks);
        if (n > 0) {
          streamChanged(c, key, s);
          if (c.server.commandLog !== null && !c.replay) c.propagate(...trimForm(key, s));
        } else c.propagate();
        return whenWritten(blocks.written(), () => {
          c.reply.integer(n);
          if (n > 0) notify(c, NotifyClass.stream, 'xtrim', key);
        });
      },
      xtrim,
      argv,
      key,
    );
  });
}

// ---- XDEL ------------------------------------------------------------------------------

function xdel(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  return withStream(c, key, (s) => {
    if (s === null) {
      c.reply.integer(0);
      c.propagate();
      return undefined;
    }
    // Every ID first: an error reply deletes nothing.
    const ids: StreamId[] = [];
    for (let i = 2; i < argv.length; i++) ids.push(parseId(argv[i]!, STRICT));
    return withBlocks(
      c,
      s,
      s.refsOf(ids),
      (blocks) => {
        let n = 0;
        for (const id of ids) if (s.delete(id, blocks)) n++;
        if (n > 0) streamChanged(c, key, s);
        else c.propagate();
        return whenWritten(blocks.written(), () => {
          c.reply.integer(n);
          if (n > 0) notify(c, NotifyClass.stream, 'xdel', key);
        });
      },
      xdel,
      argv,
      key,
    );
  });
}

// ---- XLEN ------------------------------------------------------------------------------

function xlen(c: Client, argv: Buffer[]): CommandResult {
  return readStream(c, argv[1]!, (s) => {
    c.reply.integer(s === null ? 0 : s.size);
    return undefined;
  });
}

// ---- XSETID ----------------------------------------------------------------------------

function xsetid(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  const id = parseId(argv[2]!, STRICT);
  let entriesAdded = -1;
  let maxDeleted: StreamId | null = null;
  for (let i = 3; i < argv.length; i += 2) {
    const more = argv.length - i - 1;
    if (eqi(argv[i]!, 'entriesadded') && more >= 1) {
      entriesAdded = parseInteger(argv[i + 1]!);
      if (entriesAdded < 0) throw streamError('entries_added must be positive');
    } else if (eqi(argv[i]!, 'maxdeletedid') && more >= 1) {
      maxDeleted = parseId(argv[i + 1]!, STRICT);
      if (id < maxDeleted) {
        throw streamError(
          'The ID specified in XSETID is smaller than the provided max_deleted_entry_id',
        );
      }
    } else throw syntaxError();
  }
  return withStream(c, key, (s) => {
    if (s === null) throw noSuchKeyError();
    if (s.size > 0) {
      if (id < s.lastEntryId()) {
        throw streamError('The ID specified in XSETID is smaller than the target stream top item');
      }
      if (entriesAdded !== -1 && s.size > entriesAdded) {
        throw streamError(
          'The entries_added specified in XSETID is smaller than the target stream length',
        );
      }
    }
    s.lastId = id;
    if (entriesAdded !== -1) s.entriesAdded = entriesAdded;
    if (maxDeleted !== null && maxDeleted !== MIN_STREAM_ID) s.maxDeletedId = maxDeleted;
    streamChanged(c, key, s);
    c.reply.simple('OK');
    notify(c, NotifyClass.stream, 'xsetid', key);
    return undefined;
  });
}

export { xadd, xdel, xlen, xsetid, xtrim };
