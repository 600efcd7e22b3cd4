import {
  type CachedStreamBlocks,
  loadStreamBlocks,
  type StreamBlockRef,
  type StreamValue,
} from '@strata/collections';
import { RecordType } from '@strata/hlog';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { clientSlot } from '../family.js';
import { keyMiss } from '../pubsub/keyspace-events.js';
import {
  type Found,
  type Written,
  withCollection,
  withCollectionArg,
} from '../shared/collection-access.js';

/**
 * How the stream commands reach a stream: through the collection cache as
 * every collection, WRONGTYPE on another type; unlike the other types a
 * stream stays when it is emptied (XDEL, XTRIM), as in Redis.
 */

/** Runs `f` with the stream at `key` (null when missing). */
export function withStream(
  c: Client,
  key: Buffer,
  f: (s: Found<StreamValue>) => CommandResult,
): CommandResult {
  return withCollection<StreamValue>(c, key, RecordType.STREAM, f);
}

/** withStream with an argument for `f` instead of a closure (withCollectionArg: XADD). */
export function withStreamArg<A>(
  c: Client,
  key: Buffer,
  f: (s: Found<StreamValue>, arg: A) => CommandResult,
  arg: A,
): CommandResult {
  return withCollectionArg<StreamValue, A>(c, key, RecordType.STREAM, f, arg);
}

/** withStream for a read: a missing key is a key miss. */
export function readStream(
  c: Client,
  key: Buffer,
  f: (s: Found<StreamValue>) => CommandResult,
): CommandResult {
  return withStream(c, key, (s) => {
    if (s === null) keyMiss(c, key);
    return f(s);
  });
}

/** The stream at `key` changed in place: written back later (no write to wait for). */
export function streamChanged(c: Client, key: Buffer, s: StreamValue): Written {
  c.collections.changed(key, s);
  return undefined;
}

/** A new stream at `key`: its record is written now. */
export function createStream(c: Client, key: Buffer, s: StreamValue): Written {
  return c.collections.create(key, s);
}

/**
 * Blocks read for a command that then runs again, by client: that run
 * takes them (loadStreamBlocks checks they are still current). A client
 * runs one command at a time, so one list per client does.
 */
const carriedSlot = clientSlot('stream blocks carried', () => ({
  blocks: null as readonly CachedStreamBlocks[] | null,
}));

function takeCarried(c: Client): readonly CachedStreamBlocks[] | undefined {
  const slot = c.state(carriedSlot);
  const got = slot.blocks;
  slot.blocks = null;
  return got ?? undefined;
}

function carryTo(c: Client, blocks: readonly CachedStreamBlocks[]): void {
  c.state(carriedSlot).blocks = blocks;
}

/**
 * Runs `run` with the sealed blocks `refs` of `s` loaded: now when the
 * cache has them all, else once they are read (all at once), by running
 * the whole command again (`again`), so that what it decides and changes
 * happens in one synchronous step with what it read. Nothing may change
 * before this call; the blocks read are carried to the next run. (`again`
 * and its `argv` apart, not a closure: no allocation when nothing is read.)
 */
export function withBlocks(
  c: Client,
  s: StreamValue,
  refs: readonly StreamBlockRef[],
  run: (blocks: CachedStreamBlocks) => CommandResult,
  again: (c: Client, argv: Buffer[]) => CommandResult,
  argv: Buffer[],
  key?: Uint8Array,
): CommandResult {
  return withBlocksArg(c, s, refs, callWith, run, again, argv, key);
}

const callWith = <T>(blocks: CachedStreamBlocks, f: (blocks: CachedStreamBlocks) => T): T =>
  f(blocks);

/** withBlocks with an argument for `run` instead of a closure (XADD: nothing allocated for it). */
export function withBlocksArg<A>(
  c: Client,
  s: StreamValue,
  refs: readonly StreamBlockRef[],
  run: (blocks: CachedStreamBlocks, arg: A) => CommandResult,
  arg: A,
  again: (c: Client, argv: Buffer[]) => CommandResult,
  argv: Buffer[],
  key?: Uint8Array,
): CommandResult {
  const carry = refs.length === 0 ? undefined : takeCarried(c)?.find((b) => b.current(s));
  const b = loadStreamBlocks(c.collections, s, refs, carry, key);
  if (!(b instanceof Promise)) return run(b, arg);
  return b.then((loaded) => {
    carryTo(c, [loaded]);
    return again(c, argv);
  });
}

/** What one stream of a several-key command (XREAD) needs. */
export interface BlockNeed {
  readonly stream: StreamValue;
  readonly refs: readonly StreamBlockRef[];
  /** The stream's key (what a damaged block's error names). */
  readonly key?: Uint8Array;
}

/** withBlocks for several streams at once; `run` gets their blocks in `needs`' order. */
export function withBlocksOf(
  c: Client,
  needs: readonly BlockNeed[],
  run: (blocks: readonly CachedStreamBlocks[]) => CommandResult,
  again: () => CommandResult,
): CommandResult {
  const carry = takeCarried(c);
  const got = needs.map((n) =>
    loadStreamBlocks(
      c.collections,
      n.stream,
      n.refs,
      carry?.find((b) => b.current(n.stream)),
      n.key,
    ),
  );
  if (!got.some((g) => g instanceof Promise)) return run(got as CachedStreamBlocks[]);
  return Promise.all(got).then((loaded) => {
    carryTo(c, loaded);
    return again();
  });
}

/** Both writes, or the one in flight (a head's and its blocks'). */
export function bothWritten(a: Written, b: Written): Written {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Promise.all([a, b]).then(() => undefined);
}
