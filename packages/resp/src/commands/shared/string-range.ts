import type { RangePicker, RangeResult, RangeView, ReadRangeView } from '@strata/hlog';
import { wrongTypeError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { keyMiss } from '../pubsub/keyspace-events.js';

/**
 * Reads of part of a string for the read commands (GETRANGE, GETBIT,
 * BITCOUNT, BITPOS, BITFIELD GETs): a large value on the device is loaded
 * only in the checksummed chunks the command touches (hlog's ranged read),
 * never whole. Redis's lookupKeyRead + checkType: a missing key sends its
 * `keymiss`, a collection is WRONGTYPE.
 */

/**
 * What a ranged read gives a command: value byte `p` (for `p` in the range
 * read) is `b[base + p]`; `total` is the value's whole length. `b` is null
 * for a missing key. Valid only while the callback runs.
 */
export type StringPart = (b: Uint8Array | null, base: number, total: number) => void;

/** Runs `f` on bytes `[offset, offset + length)` of the string at `key` (clipped to it). */
export function withStringRange(
  c: Client,
  key: Buffer,
  offset: number,
  length: number,
  f: StringPart,
): CommandResult {
  return settle(c, key, c.store.readRange(key, offset, length), f);
}

/** Runs `f` on the bytes `picker` chooses once the value's length is known. */
export function withStringPicked(
  c: Client,
  key: Buffer,
  picker: RangePicker,
  f: StringPart,
): CommandResult {
  return settle(c, key, c.store.readPicked(key, picker), f);
}

function settle(c: Client, key: Buffer, v: ReadRangeView, f: StringPart): CommandResult {
  if (v.status === 'pending') return v.pending.then((r) => settled(c, key, r, f));
  if (v.status === 'found') f(v.bytes, v.offset - v.from, v.totalLength);
  else if (v.status === 'wrongType') throw wrongTypeError();
  else {
    keyMiss(c, key);
    f(null, 0, 0);
  }
  return undefined;
}

function settled(c: Client, key: Buffer, r: RangeResult, f: StringPart): void {
  if (r.status === 'found') f(r.value, -r.from, r.totalLength);
  else if (r.status === 'wrongType') throw wrongTypeError();
  else {
    keyMiss(c, key);
    f(null, 0, 0);
  }
}

/**
 * A command that walks a range of a string window by window (BITCOUNT,
 * BITPOS): `start` when a pass begins (again after the value changed under
 * it), `visit` per window (value bytes `[from, to)` at `b[base + from]`;
 * true stops the walk), `end` once (`total` -1 for a missing key).
 */
export interface StringWalk {
  start(total: number): void;
  visit(b: Uint8Array, base: number, from: number, to: number): boolean;
  end(total: number): void;
}

/**
 * Bytes read per window of a walk: the first one chunk of a blob (BITPOS
 * often stops in it), each next one twice the last, up to 16 chunks (1 MiB,
 * one device read).
 */
const FIRST_WINDOW = 1 << 16;
const MAX_WINDOW = 1 << 20;

/**
 * Windows of `picker`'s range: from the range's start (`next` -1) or from
 * `next`, at most `window` bytes (a power of two, or unbounded).
 */
class WindowPicker implements RangePicker {
  from = 0;
  to = 0;
  next = -1;
  constructor(
    readonly range: RangePicker,
    public window: number,
  ) {}

  pick(total: number): void {
    const r = this.range;
    r.pick(total);
    this.from = this.next < 0 ? r.from : Math.min(r.to, Math.max(r.from, this.next));
    // Windows end on a multiple of their size: whole chunks of a blob.
    this.to = Math.min(r.to, (Math.floor(this.from / this.window) + 1) * this.window);
  }
}

/**
 * Walks the range `picker` chooses, a window at a time, so a large value
 * on the device is never held whole. A value inside its record comes in
 * one window. Each window of a blob is checked to come from the same blob
 * (blobs never change once written): if the key changed between windows,
 * the walk starts over on the new value, so the answer is one value's.
 */
export function walkString(
  c: Client,
  key: Buffer,
  picker: RangePicker,
  walk: StringWalk,
): CommandResult {
  const w = new WindowPicker(picker, FIRST_WINDOW);
  let v = c.store.readPicked(key, w);
  if (v.status === 'found' && v.blob === -1 && v.from + v.length < picker.to) {
    // A value inside its record, in memory: all of it in one view.
    w.window = Number.POSITIVE_INFINITY;
    v = c.store.readPicked(key, w);
  }
  if (v.status === 'pending') return runWalk(c, key, w, walk, v.pending);
  if (v.status === 'wrongType') throw wrongTypeError();
  if (v.status === 'notFound') {
    keyMiss(c, key);
    walk.end(-1);
    return undefined;
  }
  if (v.from + v.length < picker.to) return runWalk(c, key, w, walk, Promise.resolve(owned(v)));
  // The whole range in hand (a value in memory): no promise.
  walk.start(v.totalLength);
  walk.visit(v.bytes, v.offset - v.from, v.from, v.from + v.length);
  walk.end(v.totalLength);
  return undefined;
}

/** The next window, as a result (a view copied: the store reuses it). */
function nextWindow(c: Client, key: Buffer, w: WindowPicker): Promise<RangeResult> {
  const v = c.store.readPicked(key, w);
  if (v.status === 'pending') return v.pending;
  if (v.status === 'notFound') return Promise.resolve({ status: 'notFound' });
  if (v.status === 'wrongType') {
    return Promise.resolve({ status: 'wrongType', type: v.type, old: null });
  }
  return Promise.resolve(owned(v));
}

function owned(v: RangeView): RangeResult {
  return {
    status: 'found',
    value: Buffer.from(v.bytes.subarray(v.offset, v.offset + v.length)),
    from: v.from,
    totalLength: v.totalLength,
    expiresAt: v.expiresAt,
    blob: v.blob,
  };
}

async function runWalk(
  c: Client,
  key: Buffer,
  w: WindowPicker,
  walk: StringWalk,
  first: Promise<RangeResult>,
): Promise<void> {
  // The value being walked: its blob and length; `started` false between passes.
  let started = false;
  let blob = -1;
  let total = 0;
  let r = await first;
  for (;;) {
    if (r.status === 'wrongType') throw wrongTypeError();
    if (r.status === 'notFound' && !started) {
      keyMiss(c, key);
      walk.end(-1);
      return;
    }
    if (r.status === 'found' && !started) {
      if (r.blob === -1 && r.from + r.value.length < w.range.to) {
        // A value inside its record, read in part: read it in one window.
        w.window = Number.POSITIVE_INFINITY;
        r = await nextWindow(c, key, w);
        continue;
      }
      started = true;
      blob = r.blob;
      total = r.totalLength;
      walk.start(total);
    }
    if (r.status === 'found' && r.blob === blob && r.totalLength === total) {
      const to = r.from + r.value.length;
      if (walk.visit(r.value, -r.from, r.from, to) || to >= w.range.to) {
        walk.end(total);
        return;
      }
      w.next = to;
      w.window = Math.min(MAX_WINDOW, w.window * 2);
    } else {
      // The key changed under the walk: start over on what it holds now.
      started = false;
      w.next = -1;
      w.window = FIRST_WINDOW;
    }
    r = await nextWindow(c, key, w);
  }
}
