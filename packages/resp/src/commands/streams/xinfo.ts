import {
  latin1,
  MAX_STREAM_ID,
  MIN_STREAM_ID,
  type StreamBlocks,
  type StreamGroup,
  type StreamValue,
} from '@strata/collections';
import type { ReplyWriter } from '@strata/protocol';
import { eqi, parseInteger } from '../../args.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { readStream, withBlocks } from './stream-access.js';
import { noSuchGroupError, noSuchKeyError, subcommandSyntaxError } from './stream-errors.js';
import { writeEntry, writeId, writeRange } from './stream-replies.js';

/** XINFO STREAM / GROUPS / CONSUMERS, with Redis 7.0's fields in its order. */

function withInfoStream(
  c: Client,
  argv: Buffer[],
  f: (s: StreamValue) => CommandResult,
): CommandResult {
  return readStream(c, argv[2]!, (s) => {
    if (s === null) throw noSuchKeyError();
    return f(s);
  });
}

function byName<T extends { readonly name: string }>(items: Iterable<T>): T[] {
  return [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function writeEntriesRead(w: ReplyWriter, g: StreamGroup): void {
  if (g.entriesRead === -1) w.null();
  else w.integer(g.entriesRead);
}

function writeLag(w: ReplyWriter, s: StreamValue, g: StreamGroup): void {
  const lag = s.lag(g);
  if (lag === null) w.null();
  else w.integer(lag);
}

/** One entry (the first or the last) or nil. */
function writeEdge(w: ReplyWriter, s: StreamValue, blocks: StreamBlocks, last: boolean): void {
  let wrote = false;
  s.range(
    MIN_STREAM_ID,
    MAX_STREAM_ID,
    last,
    (block, i) => {
      writeEntry(w, block, i);
      wrote = true;
      return false;
    },
    blocks,
  );
  if (!wrote) w.null();
}

export function xinfoStream(c: Client, argv: Buffer[]): CommandResult {
  return withInfoStream(c, argv, (s) => {
    let full = false;
    let count = 10;
    if (argv.length > 3) {
      if (!eqi(argv[3]!, 'full')) throw subcommandSyntaxError(argv[1]!, 'XINFO');
      full = true;
      if (argv.length > 4) {
        if (!eqi(argv[4]!, 'count') || argv.length !== 6)
          throw subcommandSyntaxError(argv[1]!, 'XINFO');
        count = parseInteger(argv[5]!);
        // 0 means all; a negative COUNT is the default (Redis 7.0).
        if (count < 0) count = 10;
      }
    }
    // FULL's entries, or the first and the last one.
    const refs = full
      ? s.refsFor(MIN_STREAM_ID, MAX_STREAM_ID, false, count)
      : [
          ...s.refsFor(MIN_STREAM_ID, MAX_STREAM_ID, false, 1),
          ...s.refsFor(MIN_STREAM_ID, MAX_STREAM_ID, true, 1),
        ];
    return withBlocks(c, s, refs, (b) => info(c, s, b, full, count), xinfoStream, argv, argv[2]!);
  });
}

function info(
  c: Client,
  s: StreamValue,
  b: StreamBlocks,
  full: boolean,
  count: number,
): CommandResult {
  const w = c.reply;
  const blocks = s.blockCount;
  w.map(full ? 9 : 10);
  w.bulk('length').integer(s.size);
  // Redis's rax internals; here the blocks (one key per block, and a root).
  w.bulk('radix-tree-keys').integer(blocks);
  w.bulk('radix-tree-nodes').integer(blocks + 1);
  w.bulk('last-generated-id');
  writeId(w, s.lastId);
  w.bulk('max-deleted-entry-id');
  writeId(w, s.maxDeletedId);
  w.bulk('entries-added').integer(s.entriesAdded);
  w.bulk('recorded-first-entry-id');
  writeId(w, s.firstId());
  if (!full) {
    w.bulk('groups').integer(s.groups.size);
    w.bulk('first-entry');
    writeEdge(w, s, b, false);
    w.bulk('last-entry');
    writeEdge(w, s, b, true);
    return undefined;
  }
  w.bulk('entries');
  writeRange(w, s, b, MIN_STREAM_ID, MAX_STREAM_ID, count, false);
  w.bulk('groups').array(s.groups.size);
  for (const g of byName(s.groups.values())) {
    w.map(7);
    w.bulk('name').bulkLatin1(g.name);
    w.bulk('last-delivered-id');
    writeId(w, g.lastId);
    w.bulk('entries-read');
    writeEntriesRead(w, g);
    w.bulk('lag');
    writeLag(w, s, g);
    w.bulk('pel-count').integer(g.pendingCount);
    w.bulk('pending');
    const n = count === 0 ? g.pendingCount : Math.min(count, g.pendingCount);
    w.array(n);
    let i = 0;
    g.forPending(MIN_STREAM_ID, MAX_STREAM_ID, (e) => {
      if (i++ >= n) return false;
      w.array(4);
      writeId(w, e.id);
      w.bulkLatin1(e.consumer.name).integer(e.deliveryTime).integer(e.deliveryCount);
      return true;
    });
    w.bulk('consumers').array(g.consumers.size);
    for (const consumer of byName(g.consumers.values())) {
      w.map(4);
      w.bulk('name').bulkLatin1(consumer.name);
      w.bulk('seen-time').integer(consumer.seenTime);
      w.bulk('pel-count').integer(consumer.pending);
      w.bulk('pending');
      const m = count === 0 ? consumer.pending : Math.min(count, consumer.pending);
      w.array(m);
      let k = 0;
      g.forPending(MIN_STREAM_ID, MAX_STREAM_ID, (e) => {
        if (k >= m) return false;
        if (e.consumer !== consumer) return true;
        k++;
        w.array(3);
        writeId(w, e.id);
        w.integer(e.deliveryTime).integer(e.deliveryCount);
        return true;
      });
    }
  }
  return undefined;
}

export function xinfoGroups(c: Client, argv: Buffer[]): CommandResult {
  return withInfoStream(c, argv, (s) => {
    const w = c.reply;
    w.array(s.groups.size);
    for (const g of byName(s.groups.values())) {
      w.map(6);
      w.bulk('name').bulkLatin1(g.name);
      w.bulk('consumers').integer(g.consumers.size);
      w.bulk('pending').integer(g.pendingCount);
      w.bulk('last-delivered-id');
      writeId(w, g.lastId);
      w.bulk('entries-read');
      writeEntriesRead(w, g);
      w.bulk('lag');
      writeLag(w, s, g);
    }
    return undefined;
  });
}

export function xinfoConsumers(c: Client, argv: Buffer[]): CommandResult {
  return withInfoStream(c, argv, (s) => {
    const g = s.groups.get(latin1(argv[3]!));
    if (g === undefined) throw noSuchGroupError(argv[2]!, argv[3]!);
    const w = c.reply;
    const now = Date.now();
    w.array(g.consumers.size);
    for (const consumer of byName(g.consumers.values())) {
      w.map(3);
      w.bulk('name').bulkLatin1(consumer.name);
      w.bulk('pending').integer(consumer.pending);
      w.bulk('idle').integer(Math.max(0, now - consumer.seenTime));
    }
    return undefined;
  });
}

export const XINFO_HELP = [
  'XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'CONSUMERS <key> <groupname>',
  '    Show consumers of <groupname>.',
  'GROUPS <key>',
  '    Show the stream consumer groups.',
  'STREAM <key> [FULL [COUNT <count>]',
  '    Show information about the stream.',
  'HELP',
  '    Prints this help.',
];
