import {
  latin1,
  MAX_STREAM_ID,
  MIN_STREAM_ID,
  type PendingEntry,
  type StreamBlocks,
  type StreamConsumer,
  type StreamGroup,
  type StreamId,
  type StreamValue,
} from '@strata/collections';
import { eqi, integerOrNaN } from '../../args.js';
import { CommandError, syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { streamChanged, withBlocks, withStream } from './stream-access.js';
import { idOrNull, parseBound, parseId, STRICT } from './stream-args.js';
import { noKeyOrGroupError } from './stream-errors.js';
import { claimForm, logForms, setIdForm } from './stream-forms.js';
import { writeEntry, writeId } from './stream-replies.js';
import { consumerFor } from './xread.js';

/** XCLAIM and XAUTOCLAIM: PEL entries moved to another consumer. */

function integerArg(arg: Uint8Array, message: string): number {
  const v = integerOrNaN(arg);
  if (Number.isNaN(v)) throw new CommandError('ERR_NOT_INTEGER', `ERR ${message}`);
  return v;
}

/** A claimed entry's reply: the entry (nil when gone) or its ID alone. */
function writeClaimed(
  c: Client,
  s: StreamValue,
  blocks: StreamBlocks,
  id: StreamId,
  justId: boolean,
): void {
  if (justId) {
    writeId(c.reply, id);
    return;
  }
  const e = s.entry(id, blocks);
  if (e === null) c.reply.null();
  else writeEntry(c.reply, e.block, e.index);
}

/** Moves `e` to `consumer`, with its new delivery time and count. */
function claim(
  g: StreamGroup,
  e: PendingEntry,
  consumer: StreamConsumer,
  time: number,
  count: number,
): void {
  g.setOwner(e, consumer);
  e.deliveryTime = time;
  e.deliveryCount = count;
}

export function xclaim(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  const groupName = argv[2]!;
  return withStream(c, key, (s) => {
    const g = s?.groups.get(latin1(groupName));
    if (s === null || g === undefined) throw noKeyOrGroupError(key, groupName);
    const minIdle = Math.max(0, integerArg(argv[4]!, 'Invalid min-idle-time argument for XCLAIM'));
    const ids: StreamId[] = [];
    let j = 5;
    for (; j < argv.length; j++) {
      const id = idOrNull(argv[j]!, STRICT);
      if (id === null) break;
      ids.push(id);
    }
    const now = Date.now();
    let retryCount = -1;
    let time = -1;
    let force = false;
    let justId = false;
    let lastId = MIN_STREAM_ID;
    for (; j < argv.length; j++) {
      const a = argv[j]!;
      const more = argv.length - j - 1;
      if (eqi(a, 'force')) force = true;
      else if (eqi(a, 'justid')) justId = true;
      else if (eqi(a, 'idle') && more > 0) {
        time = now - integerArg(argv[++j]!, 'Invalid IDLE option argument for XCLAIM');
      } else if (eqi(a, 'time') && more > 0) {
        time = integerArg(argv[++j]!, 'Invalid TIME option argument for XCLAIM');
      } else if (eqi(a, 'retrycount') && more > 0) {
        retryCount = integerArg(argv[++j]!, 'Invalid RETRYCOUNT option argument for XCLAIM');
      } else if (eqi(a, 'lastid') && more > 0) {
        lastId = parseId(argv[++j]!, STRICT);
      } else {
        throw new CommandError(
          'ERR_SYNTAX',
          `ERR Unrecognized XCLAIM option '${a.toString('latin1')}'`,
          true,
        );
      }
    }
    const run = (blocks: StreamBlocks): CommandResult => {
      let changed = false;
      let lastMoved = false;
      if (lastId > g.lastId) {
        g.lastId = lastId;
        changed = true;
        lastMoved = true;
      }
      if (time < 0 || time > now) time = now;
      const forms: Buffer[][] = [];
      const logging = c.server.commandLog !== null && !c.replay;
      let consumer: StreamConsumer | null = null;
      const claimed: StreamId[] = [];
      for (const id of ids) {
        let e = g.pending(id);
        if (s.entry(id, blocks) === null) {
          // The entry was deleted: its PEL entry goes (7.0).
          if (e !== undefined) {
            if (logging) forms.push(claimForm(key, groupName, g, id, e));
            g.ack(id);
            changed = true;
          }
          continue;
        }
        let forced = false;
        if (e === undefined) {
          if (!force) continue;
          forced = true;
        } else if (minIdle > 0 && now - e.deliveryTime < minIdle) continue;
        consumer ??= consumerFor(c, key, g, argv[3]!, now);
        const count = retryCount >= 0 ? retryCount : (e?.deliveryCount ?? 0) + (justId ? 0 : 1);
        if (forced) e = g.insert(id, consumer, time, count);
        else claim(g, e!, consumer, time, count);
        consumer.activeTime = now;
        claimed.push(id);
        changed = true;
        if (logging) forms.push(claimForm(key, groupName, g, id, e!));
      }
      if (lastMoved && forms.length === 0 && logging) forms.push(setIdForm(key, groupName, g));
      if (changed) streamChanged(c, key, s);
      logForms(c, forms);
      c.reply.array(claimed.length);
      for (const id of claimed) writeClaimed(c, s, blocks, id, justId);
      return undefined;
    };
    return withBlocks(c, s, s.refsOf(ids), run, xclaim, argv, key);
  });
}

/** Redis's XAUTOCLAIM COUNT bound: LONG_MAX / 16. */
const MAX_AUTOCLAIM_COUNT = Math.floor(Number.MAX_SAFE_INTEGER / 16);

export function xautoclaim(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  const groupName = argv[2]!;
  const minIdle = Math.max(
    0,
    integerArg(argv[4]!, 'Invalid min-idle-time argument for XAUTOCLAIM'),
  );
  const start = parseBound(argv[5]!, false);
  let count = 100;
  let justId = false;
  for (let j = 6; j < argv.length; j++) {
    const a = argv[j]!;
    if (eqi(a, 'count') && j + 1 < argv.length) {
      const n = integerOrNaN(argv[j + 1]!);
      if (Number.isNaN(n) || n < 1 || n > MAX_AUTOCLAIM_COUNT) {
        throw new CommandError('ERR_OUT_OF_RANGE', 'ERR COUNT must be > 0');
      }
      count = n;
      j++;
    } else if (eqi(a, 'justid')) justId = true;
    else throw syntaxError();
  }
  return withStream(c, key, (s) => {
    const g = s?.groups.get(latin1(groupName));
    if (s === null || g === undefined) throw noKeyOrGroupError(key, groupName);
    let attempts = count * 10;
    // The PEL IDs this call may look at, and one more for the cursor.
    const candidates: StreamId[] = [];
    g.forPending(start, MAX_STREAM_ID, (e) => {
      candidates.push(e.id);
      return candidates.length <= attempts;
    });
    const run = (blocks: StreamBlocks): CommandResult => {
      const now = Date.now();
      const logging = c.server.commandLog !== null && !c.replay;
      const forms: Buffer[][] = [];
      const claimed: StreamId[] = [];
      const deleted: StreamId[] = [];
      let consumer: StreamConsumer | null = null;
      let i = 0;
      for (; i < candidates.length && attempts > 0 && count > 0; i++, attempts--) {
        const id = candidates[i]!;
        const e = g.pending(id)!;
        if (s.entry(id, blocks) === null) {
          if (logging) forms.push(claimForm(key, groupName, g, id, e));
          g.ack(id);
          deleted.push(id);
          count--;
          continue;
        }
        if (minIdle > 0 && now - e.deliveryTime < minIdle) continue;
        consumer ??= consumerFor(c, key, g, argv[3]!, now);
        claim(g, e, consumer, now, e.deliveryCount + (justId ? 0 : 1));
        consumer.activeTime = now;
        claimed.push(id);
        count--;
        if (logging) forms.push(claimForm(key, groupName, g, id, e));
      }
      const next = candidates[i] ?? MIN_STREAM_ID;
      if (claimed.length > 0 || deleted.length > 0) streamChanged(c, key, s);
      logForms(c, forms);
      const w = c.reply;
      w.array(3);
      writeId(w, next);
      w.array(claimed.length);
      for (const id of claimed) writeClaimed(c, s, blocks, id, justId);
      w.array(deleted.length);
      for (const id of deleted) writeId(w, id);
      return undefined;
    };
    return withBlocks(c, s, s.refsOf(candidates), run, xautoclaim, argv, key);
  });
}
