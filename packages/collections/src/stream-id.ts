/**
 * A stream entry ID, `<ms>-<seq>` with two unsigned 64-bit halves, held as
 * a 16-character latin1 string of its big-endian bytes (ms, then seq). So
 * `<` on two IDs is their numeric order (code units compare as the bytes
 * would), an ID is a Map key as it is, and no BigInt is made per entry.
 */
export type StreamId = string & { readonly __streamId: unique symbol };

const TWO32 = 2 ** 32;

export const MIN_STREAM_ID = '\0'.repeat(16) as StreamId;
export const MAX_STREAM_ID = '\xff'.repeat(16) as StreamId;

/** The ID being made, byte by byte (putU64), then read as text by streamIdAt. */
const chars = new Uint8Array(16);

function putU64(at: number, hi: number, lo: number): void {
  chars[at] = hi >>> 24;
  chars[at + 1] = (hi >>> 16) & 0xff;
  chars[at + 2] = (hi >>> 8) & 0xff;
  chars[at + 3] = hi & 0xff;
  chars[at + 4] = lo >>> 24;
  chars[at + 5] = (lo >>> 16) & 0xff;
  chars[at + 6] = (lo >>> 8) & 0xff;
  chars[at + 7] = lo & 0xff;
}

function fromChars(): StreamId {
  return streamIdAt(chars, 0);
}

/**
 * The ID whose 16 bytes are at `b[at]` (a packed entry's, a record's):
 * fromCharCode of 16 arguments makes it in about half the time
 * `toString('latin1')` takes.
 */
export function streamIdAt(b: Uint8Array, at: number): StreamId {
  return String.fromCharCode(
    b[at]!,
    b[at + 1]!,
    b[at + 2]!,
    b[at + 3]!,
    b[at + 4]!,
    b[at + 5]!,
    b[at + 6]!,
    b[at + 7]!,
    b[at + 8]!,
    b[at + 9]!,
    b[at + 10]!,
    b[at + 11]!,
    b[at + 12]!,
    b[at + 13]!,
    b[at + 14]!,
    b[at + 15]!,
  ) as StreamId;
}

/** The ID from its halves as 32-bit words (each in [0, 2^32)). */
export function streamIdFromWords(
  msHi: number,
  msLo: number,
  seqHi: number,
  seqLo: number,
): StreamId {
  putU64(0, msHi, msLo);
  putU64(8, seqHi, seqLo);
  return fromChars();
}

/**
 * The last ID `streamId` made, with its halves: XADD makes an ID, answers
 * it, and makes the next one from it; reading the halves back from the
 * string's code units each time costs as much as making the ID.
 */
const made = { id: MIN_STREAM_ID, ms: 0, seq: 0 };

/** The ID `<ms>-<seq>` of two safe non-negative integers. */
export function streamId(ms: number, seq: number): StreamId {
  const id = streamIdFromWords(
    Math.floor(ms / TWO32),
    ms % TWO32,
    Math.floor(seq / TWO32),
    seq % TWO32,
  );
  made.id = id;
  made.ms = ms;
  made.seq = seq;
  return id;
}

/**
 * The ID XADD `*` gives after `last` at wall time `now` (ms; Redis's
 * streamNextID): `<now>-0` when the clock is past the last ID's ms, else
 * the last ID's next sequence; null past the largest ID.
 */
export function nextAutoStreamId(last: StreamId, now: number): StreamId | null {
  const known = last === made.id;
  const ms = known ? made.ms : streamIdHalf(last, 0);
  const seq = known ? made.seq : streamIdHalf(last, 8);
  if (ms >= 0 && seq >= 0) {
    if (ms < now) return streamId(now, 0);
    if (seq < Number.MAX_SAFE_INTEGER) return streamId(ms, seq + 1);
  }
  return streamIdMs(last) < now ? streamId(now, 0) : nextStreamId(last);
}

/** The ID of two unsigned 64-bit halves. */
export function streamIdBig(ms: bigint, seq: bigint): StreamId {
  return streamIdFromWords(
    Number(ms >> 32n),
    Number(ms & 0xffffffffn),
    Number(seq >> 32n),
    Number(seq & 0xffffffffn),
  );
}

function word(id: string, at: number): number {
  return (
    ((id.charCodeAt(at) << 24) |
      (id.charCodeAt(at + 1) << 16) |
      (id.charCodeAt(at + 2) << 8) |
      id.charCodeAt(at + 3)) >>>
    0
  );
}

function u64Text(hi: number, lo: number): string {
  const n = safeU64(hi, lo);
  return n >= 0 ? String(n) : ((BigInt(hi) << 32n) | BigInt(lo)).toString();
}

/** `<ms>-<seq>` in decimal, as Redis prints it. */
export function formatStreamId(id: StreamId): string {
  return `${u64Text(word(id, 0), word(id, 4))}-${u64Text(word(id, 8), word(id, 12))}`;
}

function wordAt(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}

/** formatStreamId of the 16 ID bytes at `b[at]` (a packed entry's), with no ID string made. */
export function formatStreamIdAt(b: Uint8Array, at: number): string {
  return `${u64Text(wordAt(b, at), wordAt(b, at + 4))}-${u64Text(wordAt(b, at + 8), wordAt(b, at + 12))}`;
}

/** Which half of an ID: its ms (0) or its seq (8), by byte offset. */
export type StreamIdHalf = 0 | 8;

/** A 64-bit half as a number, or -1 past 2^53 (printed by formatStreamId then). */
function safeU64(hi: number, lo: number): number {
  return hi < 0x200000 ? hi * TWO32 + lo : -1;
}

/** Half `half` of `id` as a number, or -1 past 2^53. */
export function streamIdHalf(id: StreamId, half: StreamIdHalf): number {
  // The ID just made (an XADD's reply, the next XADD): no code unit read.
  if (id === made.id) return half === 0 ? made.ms : made.seq;
  return safeU64(word(id, half), word(id, half + 4));
}

/** Half `half` of the 16 ID bytes at `b[at]` (a packed entry's), or -1 past 2^53. */
export function streamIdHalfAt(b: Uint8Array, at: number, half: StreamIdHalf): number {
  return safeU64(wordAt(b, at + half), wordAt(b, at + half + 4));
}

/** The ms half as a number (exact below 2^53; the clock's range). */
export function streamIdMs(id: StreamId): number {
  return word(id, 0) * TWO32 + word(id, 4);
}

/** Whether `a` and `b` have the same ms half. */
export function sameMs(a: StreamId, b: StreamId): boolean {
  for (let i = 0; i < 8; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return false;
  return true;
}

/** Whether the seq half of `id` is 2^64 - 1. */
export function seqIsMax(id: StreamId): boolean {
  for (let i = 8; i < 16; i++) if (id.charCodeAt(i) !== 0xff) return false;
  return true;
}

/** `<ms of id>-<seq>`: the ID with the same ms half and seq 0 or 2^64 - 1. */
export function withSeq(id: StreamId, seq: 'min' | 'max'): StreamId {
  return (id.slice(0, 8) + (seq === 'min' ? MIN_STREAM_ID : MAX_STREAM_ID).slice(8)) as StreamId;
}

/** The ID after `id` (seq + 1, carrying into ms), or null after 2^64-1-2^64-1. */
export function nextStreamId(id: StreamId): StreamId | null {
  return step(id, 1);
}

/** The ID before `id`, or null before 0-0. */
export function previousStreamId(id: StreamId): StreamId | null {
  return step(id, -1);
}

function step(id: StreamId, by: 1 | -1): StreamId | null {
  for (let i = 0; i < 16; i++) chars[i] = id.charCodeAt(i);
  for (let i = 15; i >= 0; i--) {
    const v = chars[i]! + by;
    if (v >= 0 && v <= 0xff) {
      chars[i] = v;
      return fromChars();
    }
    chars[i] = by === 1 ? 0 : 0xff;
  }
  return null;
}
