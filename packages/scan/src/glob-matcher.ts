/**
 * Redis glob patterns (KEYS, SCAN MATCH) compiled once into a matcher that
 * runs on raw key bytes.
 *
 * The semantics are exactly those of Redis's `stringmatchlen()` (src/util.c,
 * Redis 7 and later), quirks included, because clients and tests depend on
 * them:
 * - `*` any run of bytes, `?` any one byte, `\x` the byte x;
 * - `[abc]`, `[^abc]`, `[a-z]`: a reversed range `[z-a]` is the same range;
 *   `\` escapes one byte inside a class and that byte is compared
 *   case-sensitively even with `nocase`; a `-` right before `]` makes `]` the
 *   range's end (`[a-]` is the range `]`..`a`, still open);
 * - an unterminated class runs to the end of the pattern (`[abc` is `[abc]`,
 *   `[^` is `?`, `[` and `[]` match nothing);
 * - a pattern never matches the empty key unless the pattern is empty too
 *   (Redis's loop stops as soon as the key is used up) - except `*` alone,
 *   which KEYS and SCAN never hand to stringmatchlen and so matches every key;
 * - more than 1000 `*` that are not the pattern's last token never match:
 *   Redis's recursion gives up at that depth (the CVE-2022-36021 fix).
 *
 * Where Redis compares C `char`s, which are signed on x86, ranges here compare
 * unsigned bytes; the two differ only for ranges that mix ASCII with bytes
 * 0x80-0xff, and the unsigned reading is the same on every platform.
 *
 * Matching is iterative: the tokens before the first `*` are compared at the
 * start, those after the last `*` at the end, and each run between two `*` is
 * placed at its leftmost fit. Every token matches exactly one byte, so the
 * leftmost fit never loses a match, and the work is O(key x pattern) at worst,
 * where a backtracking matcher is exponential.
 */

/** Past this many nested `*`, Redis's stringmatchlen stops and reports no match. */
export const GLOB_MAX_STAR_NESTING = 1000;

export interface GlobOptions {
  /** Compare ASCII letters without case, as Redis's `nocase` flag does. */
  readonly nocase?: boolean;
}

export interface GlobMatcher {
  /** The pattern's bytes (a private copy). */
  readonly pattern: Uint8Array;
  readonly nocase: boolean;
  /**
   * Bytes every matching key starts with (possibly none). A page whose keys
   * cannot start with them cannot hold a match.
   */
  readonly literalPrefix: Uint8Array;
  /** True for `*` alone: every key matches, the empty key included. */
  readonly matchesAll: boolean;
  /** True when exactly one key matches: `literalPrefix` itself. */
  readonly exact: boolean;
  /** No key shorter than this matches. */
  readonly minLength: number;
  /**
   * Whether `buf[start, end)` matches. Allocates nothing; the range is not
   * checked (the caller owns the record layout).
   */
  match(buf: Uint8Array, start?: number, end?: number): boolean;
}

const STAR = 0x2a;
const QUESTION = 0x3f;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const CARET = 0x5e;
const DASH = 0x2d;
const BACKSLASH = 0x5c;

/** Token markers in `tokenByte`; values >= 0 are the one byte a token accepts. */
const ANY_BYTE = -1;
const BYTE_CLASS = -2;

// Matching strategies, chosen once at compile time.
/** `*` or a run of `*`: every non-empty key (and the empty one for `*`). */
const MODE_ALL = 0;
/** Can never match a non-empty key (too many nested `*`). */
const MODE_NEVER = 1;
/** A literal: one key only. */
const MODE_EXACT = 2;
/** A literal followed by a final `*`: a prefix test. */
const MODE_PREFIX = 3;
/** Anything else: anchored head and tail, leftmost placement in between. */
const MODE_GENERAL = 4;

function lower(b: number): number {
  return b >= 0x41 && b <= 0x5a ? b + 32 : b;
}

/** Compile `pattern` once; the matcher is then reused for every key. */
export function compileGlob(pattern: Uint8Array, options: GlobOptions = {}): GlobMatcher {
  return new CompiledGlob(Uint8Array.from(pattern), options.nocase === true);
}

/**
 * The pattern as a list of one-byte tokens separated by `*`: the intermediate
 * form the matcher is built from, walked exactly as Redis walks the pattern.
 */
interface Tokens {
  /** Per non-`*` token: the byte it accepts, ANY_BYTE, or BYTE_CLASS. */
  bytes: number[];
  /** Per non-`*` token: its row in `rows` when BYTE_CLASS, else -1. */
  classRow: number[];
  /** Class bitsets, 8 x 32 bits per row, deduplicated. */
  rows: number[];
  /** Token index where each `*`-separated segment starts, plus the end. */
  segmentStart: number[];
  /** Whether the last token is a `*`. */
  endsWithStar: boolean;
}

function tokenize(p: Uint8Array, nocase: boolean): Tokens {
  const tokens: Tokens = {
    bytes: [],
    classRow: [],
    rows: [],
    segmentStart: [0],
    endsWithStar: false,
  };
  const rowIndex = new Map<string, number>();
  const set = new Uint8Array(256);
  const n = p.length;
  // Redis reads one byte past the pattern (the sds terminator, always 0).
  const at = (k: number): number => (k < n ? p[k]! : 0);

  const pushSet = (): void => {
    let count = 0;
    let only = 0;
    for (let b = 0; b < 256; b++) {
      if (set[b] === 1) {
        count++;
        only = b;
      }
    }
    tokens.endsWithStar = false;
    if (count === 1) {
      tokens.bytes.push(only);
      tokens.classRow.push(-1);
      return;
    }
    if (count === 256) {
      tokens.bytes.push(ANY_BYTE);
      tokens.classRow.push(-1);
      return;
    }
    const words = new Array<number>(8).fill(0);
    for (let b = 0; b < 256; b++) {
      if (set[b] === 1) words[b >>> 5]! |= 1 << (b & 31);
    }
    const key = words.join(',');
    let row = rowIndex.get(key);
    if (row === undefined) {
      row = rowIndex.size;
      rowIndex.set(key, row);
      for (const w of words) tokens.rows.push(w >>> 0);
    }
    tokens.bytes.push(BYTE_CLASS);
    tokens.classRow.push(row);
  };

  const setLiteral = (x: number): void => {
    set.fill(0);
    if (nocase) {
      const lx = lower(x);
      for (let b = 0; b < 256; b++) if (lower(b) === lx) set[b] = 1;
    } else {
      set[x] = 1;
    }
  };

  let i = 0;
  while (i < n) {
    const c = p[i]!;
    if (c === STAR) {
      while (i + 1 < n && p[i + 1] === STAR) i++;
      tokens.segmentStart.push(tokens.bytes.length);
      tokens.endsWithStar = true;
    } else if (c === QUESTION) {
      set.fill(1);
      pushSet();
    } else if (c === LBRACKET) {
      i++;
      const negate = at(i) === CARET;
      if (negate) i++;
      set.fill(0);
      for (;;) {
        if (at(i) === BACKSLASH && n - i >= 2) {
          // An escaped byte: compared as is, even with nocase, as Redis does.
          i++;
          set[p[i]!] = 1;
        } else if (at(i) === RBRACKET) {
          break;
        } else if (i >= n) {
          // Unterminated: Redis steps back one byte so that its outer advance
          // lands exactly on the end of the pattern.
          i--;
          break;
        } else if (n - i >= 3 && p[i + 1] === DASH) {
          let lo = p[i]!;
          let hi = p[i + 2]!;
          if (lo > hi) {
            const t = lo;
            lo = hi;
            hi = t;
          }
          // Redis swaps first and lowers after, so with nocase a range whose
          // ends straddle the letters ([A-z], [a-Z]) shrinks or empties.
          if (nocase) {
            lo = lower(lo);
            hi = lower(hi);
          }
          for (let b = 0; b < 256; b++) {
            const x = nocase ? lower(b) : b;
            if (x >= lo && x <= hi) set[b] = 1;
          }
          i += 2;
        } else if (nocase) {
          const lx = lower(p[i]!);
          for (let b = 0; b < 256; b++) if (lower(b) === lx) set[b] = 1;
        } else {
          set[p[i]!] = 1;
        }
        i++;
      }
      if (negate) for (let b = 0; b < 256; b++) set[b]! ^= 1;
      pushSet();
    } else if (c === BACKSLASH) {
      // A trailing backslash stands for itself.
      if (n - i >= 2) i++;
      setLiteral(p[i]!);
      pushSet();
    } else {
      setLiteral(c);
      pushSet();
    }
    i++;
  }
  tokens.segmentStart.push(tokens.bytes.length);
  return tokens;
}

class CompiledGlob implements GlobMatcher {
  readonly pattern: Uint8Array;
  readonly nocase: boolean;
  readonly literalPrefix: Uint8Array;
  readonly matchesAll: boolean;
  readonly exact: boolean;
  readonly minLength: number;

  private readonly mode: number;
  private readonly emptyMatches: boolean;
  private readonly tokenByte: Int16Array;
  private readonly tokenRow: Int32Array;
  private readonly rows: Uint32Array;
  private readonly segmentStart: Int32Array;

  constructor(pattern: Uint8Array, nocase: boolean) {
    this.pattern = pattern;
    this.nocase = nocase;
    const t = tokenize(pattern, nocase);
    this.tokenByte = Int16Array.from(t.bytes);
    this.tokenRow = Int32Array.from(t.classRow);
    this.rows = Uint32Array.from(t.rows);
    this.segmentStart = Int32Array.from(t.segmentStart);
    this.minLength = t.bytes.length;

    const stars = t.segmentStart.length - 2;
    const nestedStars = t.endsWithStar ? stars - 1 : stars;

    // Leading tokens that accept one byte only, up to the first `*`.
    const firstSegmentEnd = t.segmentStart[1]!;
    let prefixLength = 0;
    while (prefixLength < firstSegmentEnd && t.bytes[prefixLength]! >= 0) prefixLength++;
    this.literalPrefix = Uint8Array.from(t.bytes.slice(0, prefixLength));

    // Redis never calls stringmatchlen for `*` alone (KEYS and SCAN test it
    // first), so only that pattern matches the empty key besides "".
    this.emptyMatches = pattern.length === 0 || (pattern.length === 1 && pattern[0] === STAR);

    if (nestedStars > GLOB_MAX_STAR_NESTING) {
      this.mode = MODE_NEVER;
    } else if (stars === 1 && this.minLength === 0) {
      this.mode = MODE_ALL;
    } else if (stars === 0 && prefixLength === this.minLength) {
      this.mode = MODE_EXACT;
    } else if (stars === 1 && t.endsWithStar && prefixLength === this.minLength) {
      this.mode = MODE_PREFIX;
    } else {
      this.mode = MODE_GENERAL;
    }
    this.matchesAll = this.mode === MODE_ALL && this.emptyMatches;
    this.exact = this.mode === MODE_EXACT;
  }

  match(buf: Uint8Array, start = 0, end: number = buf.length): boolean {
    const n = end - start;
    if (n === 0) return this.emptyMatches;
    switch (this.mode) {
      case MODE_ALL:
        return true;
      case MODE_NEVER:
        return false;
      case MODE_EXACT:
        return n === this.literalPrefix.length && this.hasPrefix(buf, start);
      case MODE_PREFIX:
        return n >= this.literalPrefix.length && this.hasPrefix(buf, start);
      default:
        return this.matchGeneral(buf, start, end);
    }
  }

  private hasPrefix(buf: Uint8Array, start: number): boolean {
    const lit = this.literalPrefix;
    for (let i = 0; i < lit.length; i++) {
      if (buf[start + i] !== lit[i]) return false;
    }
    return true;
  }

  /** Whether tokens [from, to) match the bytes starting at `pos`. */
  private tokensAt(buf: Uint8Array, pos: number, from: number, to: number): boolean {
    const bytes = this.tokenByte;
    for (let t = from, i = pos; t < to; t++, i++) {
      const want = bytes[t]!;
      const c = buf[i]!;
      if (want >= 0) {
        if (c !== want) return false;
      } else if (want === BYTE_CLASS) {
        const word = this.rows[(this.tokenRow[t]! << 3) + (c >>> 5)]!;
        if (((word >>> (c & 31)) & 1) === 0) return false;
      }
    }
    return true;
  }

  private matchGeneral(buf: Uint8Array, start: number, end: number): boolean {
    if (end - start < this.minLength) return false;
    const seg = this.segmentStart;
    const last = seg.length - 2;
    if (last === 0) {
      // No `*`: the key is exactly as long as the pattern's tokens.
      return end - start === this.minLength && this.tokensAt(buf, start, 0, this.minLength);
    }
    const headEnd = seg[1]!;
    const tailStart = seg[last]!;
    const tailLength = this.minLength - tailStart;
    if (!this.tokensAt(buf, start, 0, headEnd)) return false;
    if (!this.tokensAt(buf, end - tailLength, tailStart, this.minLength)) return false;
    let pos = start + headEnd;
    const limit = end - tailLength;
    for (let s = 1; s < last; s++) {
      const from = seg[s]!;
      const to = seg[s + 1]!;
      const lastStart = limit - (to - from);
      let i = pos;
      while (i <= lastStart && !this.tokensAt(buf, i, from, to)) i++;
      if (i > lastStart) return false;
      pos = i + (to - from);
    }
    return true;
  }
}
