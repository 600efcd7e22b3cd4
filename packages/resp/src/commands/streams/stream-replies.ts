import {
  formatStreamId,
  formatStreamIdAt,
  type StreamBlocks,
  type StreamBlockValue,
  type StreamId,
  type StreamValue,
  streamIdHalf,
  streamIdHalfAt,
} from '@strata/collections';
import type { ReplyWriter } from '@strata/protocol';

/** Reply shapes shared by the stream commands. */

const DASH = 0x2d;

/** `<ms>-<seq>` digit by digit, no string made; false (nothing written) past 2^53. */
function writeHalves(w: ReplyWriter, ms: number, seq: number): boolean {
  if (ms < 0 || seq < 0) return false;
  w.bulkJoined(ms, DASH, seq);
  return true;
}

/** `<ms>-<seq>` as a bulk string. */
export function writeId(w: ReplyWriter, id: StreamId): void {
  if (!writeHalves(w, streamIdHalf(id, 0), streamIdHalf(id, 8))) w.bulk(formatStreamId(id));
}

/** `[id, [field, value, ...]]` of entry `i` of `b`, copied from its packed bytes. */
export function writeEntry(w: ReplyWriter, b: StreamBlockValue, i: number): void {
  w.array(2);
  const packed = b.packed;
  const at = b.startOf(i);
  if (!writeHalves(w, streamIdHalfAt(packed, at, 0), streamIdHalfAt(packed, at, 8))) {
    w.bulk(formatStreamIdAt(packed, at));
  }
  b.writeFields(i, w);
}

// One scratch list for every range reply: the reply's length comes first, so
// the entries are gathered, then written (no array per call once it has grown).
const entryBlocks: StreamBlockValue[] = [];
const entryIndexes: number[] = [];

/**
 * The entries of `s` from `start` to `end` (or from `end` down when
 * `reverse`), their blocks loaded (refsFor), at most `count` (0: no
 * limit), as an array of entries; `onEntry` sees each one written (a group
 * read's deliveries). Returns how many were written.
 */
export function writeRange(
  w: ReplyWriter,
  s: StreamValue,
  blocks: StreamBlocks,
  start: StreamId,
  end: StreamId,
  count: number,
  reverse: boolean,
  onEntry?: (id: StreamId) => void,
): number {
  s.range(
    start,
    end,
    reverse,
    (b, i) => {
      entryBlocks.push(b);
      entryIndexes.push(i);
      return count === 0 || entryIndexes.length < count;
    },
    blocks,
  );
  const n = entryIndexes.length;
  w.array(n);
  for (let k = 0; k < n; k++) {
    const b = entryBlocks[k]!;
    const i = entryIndexes[k]!;
    writeEntry(w, b, i);
    onEntry?.(b.idAt(i));
  }
  entryBlocks.length = 0;
  entryIndexes.length = 0;
  return n;
}
