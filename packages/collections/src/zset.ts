import { RecordType } from '@strata/hlog';
import { registerSlicedCodec } from './codecs.js';
import { CollectionError } from './collection-error.js';
import type { CollectionValue } from './collection-value.js';
import { DEFAULT_ENCODING_LIMITS, encodingLimits } from './encoding-limits.js';
import { MemberScores } from './member-scores.js';
import { runWhole, SLICE_ITEMS, type Sliced } from './sliced.js';
import { Before, ScoreTree, type ZCursor } from './zset-tree.js';

/** Redis's zset-max-listpack-entries and zset-max-listpack-value. */
export const ZSET_LISTPACK_ENTRIES = DEFAULT_ENCODING_LIMITS.zsetMaxListpackEntries;
export const ZSET_LISTPACK_VALUE = DEFAULT_ENCODING_LIMITS.zsetMaxListpackValue;

// Estimates for the memory budget: a V8 one-byte string header, an array
// slot and a double per pair; a Map entry more once the set has its dict.
const PAIR_BYTES = 40;
const DICT_BYTES = 48;
const BASE_BYTES = 160;

/** What ZADD did to one member. */
export type ZAddOutcome = 'added' | 'updated' | 'unchanged' | 'skipped';

/**
 * A sorted set: pairs (score, member) in a ScoreTree, plus, once it is large,
 * a member -> score table (MemberScores) for O(1) ZSCORE and the lookups of
 * ZADD and ZREM.
 *
 * Members are latin1 strings (one char per byte, so any bytes round-trip and
 * compare as memcmp); the commands convert at the edge.
 *
 * Encodings, as Redis reports them: `listpack` while the set has at most 128
 * members of at most 64 bytes; then it holds only the tree (one leaf: member
 * lookups scan it, which is what a listpack costs too). `skiplist` past
 * that: the table is built and kept. As in Redis the conversion is one way,
 * except for sets built whole (`fromSorted`, stores of ZUNIONSTORE...).
 */
export class SortedSet implements CollectionValue {
  readonly type: number = RecordType.ZSET;
  private tree: ScoreTree;
  private dict: MemberScores | null;
  private memberBytes = 0;

  constructor(tree: ScoreTree = new ScoreTree(), dict: MemberScores | null = null) {
    this.tree = tree;
    this.dict = dict;
  }

  /** A set from pairs in (score, member) order, in the encoding Redis would pick for it. */
  static fromSorted(scores: ArrayLike<number>, members: readonly string[]): SortedSet {
    return runWhole(SortedSet.fromSortedSliced(scores, members));
  }

  /** fromSorted, yielding between slices of the build. */
  static *fromSortedSliced(
    scores: ArrayLike<number>,
    members: readonly string[],
  ): Sliced<SortedSet> {
    let bytes = 0;
    let long = false;
    for (const m of members) {
      bytes += m.length;
      if (m.length > encodingLimits.zsetMaxListpackValue) long = true;
    }
    let dict: MemberScores | null = null;
    if (long || members.length > encodingLimits.zsetMaxListpackEntries) {
      dict = new MemberScores(members.length);
      for (let i = 0; i < members.length; i++) {
        dict.add(members[i]!, scores[i]!);
        if (i % SLICE_ITEMS === SLICE_ITEMS - 1) yield;
      }
    }
    const tree = yield* ScoreTree.fromSortedSliced(scores, members);
    const z = new SortedSet(tree, dict);
    z.memberBytes = bytes;
    return z;
  }

  get size(): number {
    return this.tree.size;
  }

  encoding(): string {
    return this.dict === null ? 'listpack' : 'skiplist';
  }

  memoryBytes(): number {
    const perPair = this.dict === null ? PAIR_BYTES : PAIR_BYTES + DICT_BYTES;
    return BASE_BYTES + this.tree.size * perPair + this.memberBytes;
  }

  encode(): Buffer {
    return runWhole(this.encodeSliced());
  }

  /**
   * The record's value (see encodeSortedSet), written into one buffer sized
   * up front from the member bytes, yielding every SLICE_ITEMS pairs (a
   * large set writes back without stalling).
   */
  *encodeSliced(): Sliced<Buffer> {
    const n = this.tree.size;
    const out = Buffer.allocUnsafe(5 + 12 * n + this.memberBytes);
    out[0] = ZSET_FORMAT;
    out.writeUInt32LE(n, 1);
    let o = 5;
    if (n > 0) {
      const c = this.tree.at(0);
      for (let i = 0; i < n; i++, c.next()) {
        const m = c.member;
        out.writeDoubleLE(c.score, o);
        out.writeUInt32LE(m.length, o + 8);
        o += 12;
        o += out.write(m, o, 'latin1');
        if (i % SLICE_ITEMS === SLICE_ITEMS - 1) yield;
      }
    }
    if (o !== out.length)
      throw new CollectionError('ERR_INVALID_ARGUMENT', 'serialized size mismatch');
    return out;
  }

  /** The member's score, or undefined. */
  score(member: string): number | undefined {
    if (this.dict !== null) return this.dict.get(member);
    // Listpack: at most 128 pairs, scanned as Redis scans its listpack.
    return this.tree.scanFor(member);
  }

  /**
   * Sets a member's score with ZADD's rules: NX only adds, XX only updates,
   * GT/LT update only upwards/downwards. The score is not NaN.
   */
  add(member: string, score: number, flags = 0): ZAddOutcome {
    // One table lookup: its slot takes the new score (see MemberScores).
    const dict = this.dict;
    const slot = dict === null ? -1 : dict.slotOf(member);
    const old =
      dict === null ? this.tree.scanFor(member) : slot < 0 ? undefined : dict.scoreAt(slot);
    if (old === undefined) {
      if ((flags & ZAddFlag.XX) !== 0) return 'skipped';
      this.insertNew(member, score);
      return 'added';
    }
    if ((flags & ZAddFlag.NX) !== 0) return 'skipped';
    if ((flags & ZAddFlag.GT) !== 0 && !(score > old)) return 'skipped';
    if ((flags & ZAddFlag.LT) !== 0 && !(score < old)) return 'skipped';
    if (old === score) return 'unchanged';
    this.tree.updateScore(old, score, member);
    if (slot >= 0) dict!.setAt(slot, score);
    return 'updated';
  }

  /** Removes a member; false when absent. */
  remove(member: string): boolean {
    const old = this.score(member);
    if (old === undefined) return false;
    this.tree.remove(old, member);
    this.dict?.delete(member);
    this.memberBytes -= member.length;
    return true;
  }

  /** 0-based rank (from the highest with `reverse`), or -1. */
  rank(member: string, reverse = false): number {
    const s = this.score(member);
    if (s === undefined) return -1;
    const r = this.tree.rank(s, member);
    return reverse ? this.tree.size - 1 - r : r;
  }

  /** A cursor on rank `rank` (0 <= rank < size), walking with next()/prev(). */
  at(rank: number): ZCursor {
    return this.tree.at(rank);
  }

  /** The rank where a bound starts: how many pairs lie before it. */
  countBefore(mode: Before, score: number, member = ''): number {
    return this.tree.countBefore(mode, score, member);
  }

  /** Every pair in order. */
  forEach(fn: (score: number, member: string) => void): void {
    this.tree.forEach(fn);
  }

  private insertNew(member: string, score: number): void {
    if (
      this.dict === null &&
      (this.tree.size >= encodingLimits.zsetMaxListpackEntries ||
        member.length > encodingLimits.zsetMaxListpackValue)
    ) {
      this.convertToSkiplist();
    }
    this.tree.insert(score, member);
    this.dict?.add(member, score);
    this.memberBytes += member.length;
  }

  private convertToSkiplist(): void {
    const dict = new MemberScores(this.tree.size * 2);
    this.tree.forEach((s, m) => {
      dict.add(m, s);
    });
    this.dict = dict;
  }
}

/** ZADD's conditions as bits. */
export const ZAddFlag = { NX: 1, XX: 2, GT: 4, LT: 8 } as const;

export { Before };

// ---- codec ----------------------------------------------------------------------

const ZSET_FORMAT = 1;

/**
 * The record's value: a format byte, the count (u32), then per pair the
 * score (f64) and the member (u32 length, bytes), in order, so decoding
 * rebuilds the tree bottom-up in O(n) with no comparisons.
 */
export function encodeSortedSet(z: SortedSet): Buffer {
  return z.encode();
}

export function decodeSortedSet(bytes: Uint8Array): SortedSet {
  return runWhole(decodeSortedSetSliced(bytes));
}

/** The decoder, yielding every SLICE_ITEMS pairs (a large set loads without stalling). */
export function* decodeSortedSetSliced(bytes: Uint8Array): Sliced<SortedSet> {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < 5 || b[0] !== ZSET_FORMAT) throw corrupt('bad header');
  const n = b.readUInt32LE(1);
  // Every pair takes 12 bytes at least: a count beyond that is corrupt (and no huge allocation).
  if (n > (b.length - 5) / 12) throw corrupt('truncated');
  const scores = new Float64Array(n);
  const members = new Array<string>(n);
  let o = 5;
  for (let i = 0; i < n; i++) {
    if (o + 12 > b.length) throw corrupt('truncated');
    scores[i] = b.readDoubleLE(o);
    const len = b.readUInt32LE(o + 8);
    o += 12;
    if (o + len > b.length) throw corrupt('truncated');
    members[i] = b.toString('latin1', o, o + len);
    o += len;
    if (i % SLICE_ITEMS === SLICE_ITEMS - 1) yield;
  }
  if (o !== b.length) throw corrupt('trailing bytes');
  return yield* SortedSet.fromSortedSliced(scores, members);
}

function corrupt(why: string): CollectionError {
  return new CollectionError('ERR_CORRUPT', `sorted set record does not decode: ${why}`);
}

registerSlicedCodec(RecordType.ZSET, decodeSortedSetSliced);
