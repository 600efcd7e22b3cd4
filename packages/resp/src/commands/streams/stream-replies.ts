import {
  formatStreamId,
  type StreamBlocks,
  type StreamId,
  type StreamValue,
} from '@strata/collections';
import type { ReplyWriter } from '@strata/protocol';

/** Reply shapes shared by the stream commands. */

export function writeId(w: ReplyWriter, id: StreamId): void {
  w.bulk(formatStreamId(id));
}

/** `[id, [field, value, ...]]`. */
export function writeEntry(w: ReplyWriter, id: StreamId, fields: readonly string[]): void {
  w.array(2);
  writeId(w, id);
  w.array(fields.length);
  for (const f of fields) w.bulkLatin1(f);
}

// One scratch list for every range reply: the reply's length comes first, so
// the entries are gathered, then written (no array per call once it has grown).
const ids: StreamId[] = [];
const fieldLists: (readonly string[])[] = [];

/**
 * The entries of `s` from `start` to `end` (their blocks loaded: refsFor) (or from `end` down when
 * `reverse`), at most `count` (0: no limit), as an array of entries;
 * `onEntry` sees each one written (a group read's deliveries). Returns how
 * many were written.
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
  gatherRange(s, blocks, start, end, count, reverse);
  const n = ids.length;
  w.array(n);
  for (let i = 0; i < n; i++) {
    writeEntry(w, ids[i]!, fieldLists[i]!);
    onEntry?.(ids[i]!);
  }
  ids.length = 0;
  fieldLists.length = 0;
  return n;
}

function gatherRange(
  s: StreamValue,
  blocks: StreamBlocks,
  start: StreamId,
  end: StreamId,
  count: number,
  reverse: boolean,
): void {
  ids.length = 0;
  fieldLists.length = 0;
  s.range(
    start,
    end,
    reverse,
    (id, fields) => {
      ids.push(id);
      fieldLists.push(fields);
      return count === 0 || ids.length < count;
    },
    blocks,
  );
}
