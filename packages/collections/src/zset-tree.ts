/**
 * The ordered half of a sorted set: an order-statistic B+tree of
 * (score, member) pairs, ordered by score, then member bytes (members are
 * latin1 strings, one char per byte, so `<` on them is memcmp).
 *
 * Nodes are not objects: they are numbered slots of a few typed-array pools
 * owned by the tree (struct of arrays). A leaf `l` holds its scores at
 * `leafScores[l * LEAF_STRIDE ...]` and its members at the same offsets of
 * `leafMembers`; an inner node holds its separators, children and child
 * counts the same way. A descent then touches only the cache lines of the
 * values it compares, not an object, an array header and a backing store
 * per field per level: on a 1M-member set, where every level misses the
 * cache, that is most of what a one-member write costs.
 *
 * Leaves are linked both ways, so a range walks leaf by leaf. Inner nodes
 * hold each child's element count and a separator (the first pair the child
 * had when it was split off): every pair of child i is >= separator i and <
 * separator i+1. Deletes never need to fix separators (the bound stays
 * true), which keeps them as cheap as inserts. Insert, delete, rank and the
 * n-th pair cost O(log n) node visits, each O(LEAF_CAP) at most.
 */

import { runWhole, SLICE_ITEMS, type Sliced } from './sliced.js';

export const LEAF_CAP = 128;
const INNER_CAP = 64;
// One spare slot: a node overflows by one pair, then splits.
const LEAF_STRIDE = LEAF_CAP + 1;
const INNER_STRIDE = INNER_CAP + 1;
/** A leaf this empty takes its right sibling in when both fit in half a leaf. */
const MERGE_BELOW = LEAF_CAP / 4;
const NONE = -1;
const LEAVES_PER_SLICE = Math.max(1, Math.floor(SLICE_ITEMS / 64));
// Per-leaf metadata in `leafMeta`: count, next, prev.
const META = 3;

/** Bounds for `countBefore`: which pairs lie before the bound. */
export const Before = {
  /** score < s */
  SCORE_LT: 0,
  /** score <= s */
  SCORE_LE: 1,
  /** member < m (lex ranges: every score equal) */
  LEX_LT: 2,
  /** member <= m */
  LEX_LE: 3,
  /** (score, member) <= (s, m) */
  ENTRY_LE: 4,
} as const;
export type Before = (typeof Before)[keyof typeof Before];

/** `(s1, m1)` against `(s2, m2)`: negative, 0 or positive. */
export function compareEntries(s1: number, m1: string, s2: number, m2: string): number {
  if (s1 < s2) return -1;
  if (s1 > s2) return 1;
  if (m1 < m2) return -1;
  if (m1 > m2) return 1;
  return 0;
}

function before(mode: Before, xs: number, xm: string, s: number, m: string): boolean {
  switch (mode) {
    case Before.SCORE_LT:
      return xs < s;
    case Before.SCORE_LE:
      return xs <= s;
    case Before.LEX_LT:
      return xm < m;
    case Before.LEX_LE:
      return xm <= m;
    default:
      return compareEntries(xs, xm, s, m) <= 0;
  }
}

/** A position in the tree: a leaf number and an index in it (leaf -1: past either end). */
export class ZCursor {
  constructor(
    private readonly tree: ScoreTree,
    private leaf: number,
    private index: number,
  ) {}

  get valid(): boolean {
    return this.leaf !== NONE;
  }
  get score(): number {
    return this.tree.leafScores[this.leaf * LEAF_STRIDE + this.index]!;
  }
  get member(): string {
    return this.tree.leafMembers[this.leaf * LEAF_STRIDE + this.index]!;
  }
  next(): void {
    const meta = this.tree.leafMeta;
    if (++this.index < meta[this.leaf * META]!) return;
    this.leaf = meta[this.leaf * META + 1]!;
    this.index = 0;
  }
  prev(): void {
    if (--this.index >= 0) return;
    const meta = this.tree.leafMeta;
    this.leaf = meta[this.leaf * META + 2]!;
    this.index = this.leaf === NONE ? 0 : meta[this.leaf * META]! - 1;
  }
}

// The path of a descent, reused by every operation (one tree runs at a time).
const pathNodes = new Int32Array(64);
const pathIndex = new Int32Array(64);

const EMPTY_F64 = new Float64Array(0);
const EMPTY_I32 = new Int32Array(0);

export class ScoreTree {
  /** @internal leaf pools, read by ZCursor */
  leafScores: Float64Array;
  /** @internal */
  leafMembers: string[];
  /** @internal count, next, prev per leaf */
  leafMeta: Int32Array;
  private leafTop = 0;
  private readonly freeLeaves: number[] = [];

  private sepScores: Float64Array = EMPTY_F64;
  private sepMembers: string[] = [];
  private children: Int32Array = EMPTY_I32;
  private counts: Float64Array = EMPTY_F64;
  private innerSize: Int32Array = EMPTY_I32;
  private innerTop = 0;
  private readonly freeInners: number[] = [];

  private root: number;
  /** Inner levels above the leaves (0: the root is a leaf). */
  private height = 0;
  private count = 0;
  /** The pair count of the leaf the last `descend` reached. */
  private leafN = 0;
  /** The separator scores around the leaf the last descent reached (NaN: none above). */
  private guessLo = 0;
  private guessHi = 0;

  constructor(firstLeafSlots = 8) {
    // A small set gets a small first leaf; it grows up to a whole one.
    this.leafScores = new Float64Array(firstLeafSlots);
    this.leafMembers = new Array<string>(firstLeafSlots).fill('');
    this.leafMeta = new Int32Array(META * 4);
    this.root = this.newLeaf();
  }

  get size(): number {
    return this.count;
  }

  /** Adds a pair that is not in the tree. */
  insert(score: number, member: string): void {
    let node = this.root;
    const h = this.height;
    // The leaf's count is its parent's count of it (a line the descent has
    // in cache already), not its own metadata (one more miss).
    let n = h === 0 ? this.leafMeta[node * META]! : 0;
    for (let d = 0; d < h; d++) {
      const i = this.childFor(node, score, member);
      n = this.counts[node * INNER_STRIDE + i]!++;
      this.guessBounds(node, i);
      pathNodes[d] = node;
      pathIndex[d] = i;
      node = this.children[node * INNER_STRIDE + i]!;
    }
    const pos = this.leafSearch(node, n, h === 0 ? -1 : this.guess(n, score), score, member);
    this.insertAt(node, n, pos, score, member);
    this.count++;
    if (n + 1 > LEAF_CAP) this.split(node, h);
  }

  /** Removes a pair; false when it is not there. */
  remove(score: number, member: string): boolean {
    const leaf = this.descend(score, member);
    const n = this.leafN;
    const pos = this.leafSearch(
      leaf,
      n,
      this.height === 0 ? -1 : this.guess(n, score),
      score,
      member,
    );
    const at = leaf * LEAF_STRIDE + pos;
    if (pos >= n || this.leafScores[at] !== score || this.leafMembers[at] !== member) {
      return false;
    }
    this.removeAt(leaf, n, pos);
    this.afterRemove(leaf);
    return true;
  }

  /**
   * Moves a member from score `from` (it must be in the tree there) to `to`.
   * When the new pair keeps its place between its neighbours in the leaf,
   * the score changes in place (Redis's zslUpdateScore); else remove+insert.
   */
  updateScore(from: number, to: number, member: string): void {
    const leaf = this.descend(from, member);
    const n = this.leafN;
    const pos = this.leafSearch(
      leaf,
      n,
      this.height === 0 ? -1 : this.guess(n, from),
      from,
      member,
    );
    const base = leaf * LEAF_STRIDE;
    const s = this.leafScores;
    const m = this.leafMembers;
    // Only inside the leaf: its first pair bounds the separator above it.
    if (
      pos > 0 &&
      pos < n - 1 &&
      compareEntries(s[base + pos - 1]!, m[base + pos - 1]!, to, member) < 0 &&
      compareEntries(to, member, s[base + pos + 1]!, m[base + pos + 1]!) < 0
    ) {
      s[base + pos] = to;
      return;
    }
    // The tree's own string goes back in, not the caller's fresh copy: the
    // old one is long-lived already, the new one then dies young (no
    // promotion, no old-space garbage for the major GC of a large set).
    const stored = m[base + pos]!;
    this.removeAt(leaf, n, pos);
    this.afterRemove(leaf);
    this.insert(to, stored);
  }

  /** 0-based rank of a pair in the tree, or -1. */
  rank(score: number, member: string): number {
    let node = this.root;
    let rank = 0;
    for (let d = 0; d < this.height; d++) {
      const i = this.childFor(node, score, member);
      const base = node * INNER_STRIDE;
      for (let j = 0; j < i; j++) rank += this.counts[base + j]!;
      node = this.children[base + i]!;
    }
    const n = this.leafMeta[node * META]!;
    const pos = this.leafLowerBound(node, n, score, member);
    const at = node * LEAF_STRIDE + pos;
    if (pos >= n || this.leafScores[at] !== score || this.leafMembers[at] !== member) {
      return -1;
    }
    return rank + pos;
  }

  /** A cursor on the pair of rank `rank` (0 <= rank < size). */
  at(rank: number): ZCursor {
    let node = this.root;
    let r = rank;
    for (let d = 0; d < this.height; d++) {
      const base = node * INNER_STRIDE;
      let i = 0;
      while (r >= this.counts[base + i]!) r -= this.counts[base + i++]!;
      node = this.children[base + i]!;
    }
    return new ZCursor(this, node, r);
  }

  /** How many pairs lie before the bound (the rank where it starts). */
  countBefore(mode: Before, score: number, member: string): number {
    let node = this.root;
    let n = 0;
    for (let d = 0; d < this.height; d++) {
      const base = node * INNER_STRIDE;
      // Every pair of child i is < separator i+1: when that separator is
      // before the bound, the whole child is.
      let i = 0;
      const last = this.innerSize[node]! - 1;
      while (
        i < last &&
        before(mode, this.sepScores[base + i + 1]!, this.sepMembers[base + i + 1]!, score, member)
      ) {
        n += this.counts[base + i++]!;
      }
      node = this.children[base + i]!;
    }
    const base = node * LEAF_STRIDE;
    let lo = 0;
    let hi = this.leafMeta[node * META]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (
        before(mode, this.leafScores[base + mid]!, this.leafMembers[base + mid]!, score, member)
      ) {
        lo = mid + 1;
      } else hi = mid;
    }
    return n + lo;
  }

  /** A member's score by a scan of the leaves (small sets have no member map). */
  scanFor(member: string): number | undefined {
    const meta = this.leafMeta;
    for (let l = this.firstLeaf(); l !== NONE; l = meta[l * META + 1]!) {
      const base = l * LEAF_STRIDE;
      const end = base + meta[l * META]!;
      for (let i = base; i < end; i++)
        if (this.leafMembers[i] === member) return this.leafScores[i];
    }
    return undefined;
  }

  /** Every pair in order (for encode and conversion). */
  forEach(fn: (score: number, member: string) => void): void {
    const meta = this.leafMeta;
    for (let l = this.firstLeaf(); l !== NONE; l = meta[l * META + 1]!) {
      const base = l * LEAF_STRIDE;
      const end = base + meta[l * META]!;
      for (let i = base; i < end; i++) fn(this.leafScores[i]!, this.leafMembers[i]!);
    }
  }

  /**
   * Builds a tree from pairs already in order in O(n), with no comparisons:
   * leaves filled to 3/4 (inserts stay cheap), inner nodes likewise.
   */
  static fromSorted(scores: ArrayLike<number>, members: readonly string[]): ScoreTree {
    return runWhole(ScoreTree.fromSortedSliced(scores, members));
  }

  /** fromSorted, yielding every few leaves (a large decode stays in slices). */
  static *fromSortedSliced(
    scores: ArrayLike<number>,
    members: readonly string[],
  ): Sliced<ScoreTree> {
    const n = members.length;
    if (n <= LEAF_CAP) {
      const t = new ScoreTree(Math.max(8, n));
      for (let i = 0; i < n; i++) {
        t.leafScores[i] = scores[i]!;
        t.leafMembers[i] = members[i]!;
      }
      t.leafMeta[0] = n;
      t.count = n;
      return t;
    }
    const per = (LEAF_CAP * 3) >>> 2;
    const leaves = Math.ceil(n / per);
    const t = new ScoreTree(leaves * LEAF_STRIDE);
    t.growLeafMeta(leaves);
    t.leafTop = 0;
    const level: number[] = [];
    let prev = NONE;
    for (let i = 0; i < n; i += per) {
      const l = t.newLeaf();
      const k = Math.min(per, n - i);
      const base = l * LEAF_STRIDE;
      for (let j = 0; j < k; j++) {
        t.leafScores[base + j] = scores[i + j]!;
        t.leafMembers[base + j] = members[i + j]!;
      }
      t.leafMeta[l * META] = k;
      t.leafMeta[l * META + 2] = prev;
      if (prev !== NONE) t.leafMeta[prev * META + 1] = l;
      prev = l;
      level.push(l);
      if (level.length % LEAVES_PER_SLICE === 0) yield;
    }
    const innerPer = (INNER_CAP * 3) >>> 2;
    let nodes = level;
    let leafLevel = true;
    while (nodes.length > 1) {
      const up: number[] = [];
      for (let i = 0; i < nodes.length; i += innerPer) {
        const inner = t.newInner();
        const end = Math.min(nodes.length, i + innerPer);
        for (let j = i; j < end; j++) t.appendChild(inner, nodes[j]!, leafLevel);
        up.push(inner);
      }
      nodes = up;
      leafLevel = false;
      t.height++;
    }
    t.root = nodes[0]!;
    t.count = n;
    return t;
  }

  // ---- nodes -----------------------------------------------------------------------

  private firstLeaf(): number {
    let node = this.root;
    for (let d = 0; d < this.height; d++) node = this.children[node * INNER_STRIDE]!;
    return node;
  }

  /** Descends to the leaf of (score, member), the path in pathNodes/pathIndex. */
  private descend(score: number, member: string): number {
    let node = this.root;
    let n = this.height === 0 ? this.leafMeta[node * META]! : 0;
    for (let d = 0; d < this.height; d++) {
      const i = this.childFor(node, score, member);
      pathNodes[d] = node;
      pathIndex[d] = i;
      n = this.counts[node * INNER_STRIDE + i]!;
      this.guessBounds(node, i);
      node = this.children[node * INNER_STRIDE + i]!;
    }
    this.leafN = n;
    return node;
  }

  /** The child whose range holds (score, member): the last one whose separator is <= it. */
  private childFor(node: number, score: number, member: string): number {
    const s = this.sepScores;
    const base = node * INNER_STRIDE;
    let lo = 1;
    let hi = this.innerSize[node]!;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const x = s[base + mid]!;
      if (x < score || (x === score && this.sepMembers[base + mid]! <= member)) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }

  /** Notes the separators around child i: the score range of the leaf a descent ends in. */
  private guessBounds(node: number, i: number): void {
    const at = node * INNER_STRIDE + i;
    this.guessLo = this.sepScores[at]!;
    this.guessHi = i + 1 < this.innerSize[node]! ? this.sepScores[at + 1]! : Number.NaN;
  }

  /**
   * Where `score` should sit among the leaf's n pairs if its scores spread
   * evenly between the separators around it (lines the descent has in
   * cache); -1 when that says nothing (the last child, equal bounds).
   */
  private guess(n: number, score: number): number {
    const g = ((score - this.guessLo) / (this.guessHi - this.guessLo)) * n;
    return g >= 0 && g < n ? Math.floor(g) : -1;
  }

  /** (leaf pair j) < (score, member). */
  private lessAt(at: number, score: number, member: string): boolean {
    const x = this.leafScores[at]!;
    return x < score || (x === score && this.leafMembers[at]! < member);
  }

  /**
   * leafLowerBound starting from a guess: a search that gallops out from
   * index `g` and then halves. On a large set each probe of a leaf is a
   * cache miss; a good guess needs one or two lines where halving the whole
   * leaf touches four or five, and a bad one costs at most about twice.
   */
  private leafSearch(leaf: number, n: number, g: number, score: number, member: string): number {
    if (g < 0) return this.leafLowerBound(leaf, n, score, member);
    const base = leaf * LEAF_STRIDE;
    let lo: number;
    let hi: number;
    if (this.lessAt(base + g, score, member)) {
      // The answer is above g: widen until a pair that is not less.
      lo = g + 1;
      hi = lo;
      let step = 1;
      while (hi < n && this.lessAt(base + hi, score, member)) {
        lo = hi + 1;
        hi = lo + step;
        step <<= 1;
      }
      if (hi > n) hi = n;
    } else {
      // The answer is g or below: widen down until a pair that is less.
      hi = g;
      lo = hi - 1;
      let step = 1;
      while (lo >= 0 && !this.lessAt(base + lo, score, member)) {
        hi = lo;
        lo = hi - 1 - step;
        step <<= 1;
      }
      lo = lo < 0 ? 0 : lo + 1;
    }
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.lessAt(base + mid, score, member)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The first index of the leaf whose pair is >= (score, member). */
  private leafLowerBound(leaf: number, n: number, score: number, member: string): number {
    const s = this.leafScores;
    const base = leaf * LEAF_STRIDE;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const x = s[base + mid]!;
      if (x < score || (x === score && this.leafMembers[base + mid]! < member)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private insertAt(leaf: number, n: number, pos: number, score: number, member: string): void {
    const base = leaf * LEAF_STRIDE;
    if (base + n + 1 > this.leafScores.length) this.growLeafSlots(base + n + 1);
    const s = this.leafScores;
    const m = this.leafMembers;
    s.copyWithin(base + pos + 1, base + pos, base + n);
    for (let j = base + n; j > base + pos; j--) m[j] = m[j - 1]!;
    s[base + pos] = score;
    m[base + pos] = member;
    this.leafMeta[leaf * META] = n + 1;
  }

  /** Takes pair `pos` out of the leaf and the path's counts (after `descend`). */
  private removeAt(leaf: number, count: number, pos: number): void {
    const base = leaf * LEAF_STRIDE;
    const n = count - 1;
    const m = this.leafMembers;
    this.leafScores.copyWithin(base + pos, base + pos + 1, base + n + 1);
    for (let j = base + pos; j < base + n; j++) m[j] = m[j + 1]!;
    m[base + n] = '';
    this.leafMeta[leaf * META] = n;
    this.count--;
    for (let d = 0; d < this.height; d++)
      this.counts[pathNodes[d]! * INNER_STRIDE + pathIndex[d]!]!--;
  }

  private afterRemove(leaf: number): void {
    if (this.height > 0) this.shrink(leaf, this.height);
  }

  private newLeaf(): number {
    const l = this.freeLeaves.length > 0 ? this.freeLeaves.pop()! : this.leafTop++;
    this.growLeafMeta(l + 1);
    const meta = this.leafMeta;
    meta[l * META] = 0;
    meta[l * META + 1] = NONE;
    meta[l * META + 2] = NONE;
    return l;
  }

  private freeLeaf(l: number): void {
    const meta = this.leafMeta;
    const next = meta[l * META + 1]!;
    const prev = meta[l * META + 2]!;
    if (prev !== NONE) meta[prev * META + 1] = next;
    if (next !== NONE) meta[next * META + 2] = prev;
    const base = l * LEAF_STRIDE;
    this.leafMembers.fill('', base, base + meta[l * META]!);
    meta[l * META] = 0;
    this.freeLeaves.push(l);
  }

  private growLeafMeta(leaves: number): void {
    if (leaves * META <= this.leafMeta.length) return;
    const meta = new Int32Array(Math.max(leaves, (this.leafMeta.length / META) * 2) * META);
    meta.set(this.leafMeta);
    this.leafMeta = meta;
  }

  private growLeafSlots(slots: number): void {
    const cap = Math.max(slots, this.leafScores.length * 2);
    const s = new Float64Array(cap);
    s.set(this.leafScores);
    this.leafScores = s;
    const m = this.leafMembers;
    for (let i = m.length; i < cap; i++) m.push('');
  }

  private newInner(): number {
    const node = this.freeInners.length > 0 ? this.freeInners.pop()! : this.innerTop++;
    if ((node + 1) * INNER_STRIDE > this.sepScores.length) this.growInners(node + 1);
    this.innerSize[node] = 0;
    return node;
  }

  private freeInner(node: number): void {
    const base = node * INNER_STRIDE;
    this.sepMembers.fill('', base, base + this.innerSize[node]!);
    this.innerSize[node] = 0;
    this.freeInners.push(node);
  }

  private growInners(nodes: number): void {
    const cap = Math.max(nodes, 2 * this.innerSize.length, 4);
    const slots = cap * INNER_STRIDE;
    const seps = new Float64Array(slots);
    seps.set(this.sepScores);
    this.sepScores = seps;
    const children = new Int32Array(slots);
    children.set(this.children);
    this.children = children;
    const counts = new Float64Array(slots);
    counts.set(this.counts);
    this.counts = counts;
    const size = new Int32Array(cap);
    size.set(this.innerSize);
    this.innerSize = size;
    const m = this.sepMembers;
    for (let i = m.length; i < slots; i++) m.push('');
  }

  /** Appends a built child to an inner node (bulk build). */
  private appendChild(inner: number, child: number, isLeaf: boolean): void {
    const at = inner * INNER_STRIDE + this.innerSize[inner]!;
    this.children[at] = child;
    if (isLeaf) {
      this.counts[at] = this.leafMeta[child * META]!;
      this.sepScores[at] = this.leafScores[child * LEAF_STRIDE]!;
      this.sepMembers[at] = this.leafMembers[child * LEAF_STRIDE]!;
    } else {
      this.counts[at] = this.sumCounts(child);
      this.sepScores[at] = this.sepScores[child * INNER_STRIDE]!;
      this.sepMembers[at] = this.sepMembers[child * INNER_STRIDE]!;
    }
    this.innerSize[inner]!++;
  }

  private sumCounts(node: number): number {
    const base = node * INNER_STRIDE;
    let s = 0;
    for (let i = 0; i < this.innerSize[node]!; i++) s += this.counts[base + i]!;
    return s;
  }

  /** Opens slot `i` of inner node `node` for (child, count, separator). */
  private insertChild(
    node: number,
    i: number,
    child: number,
    count: number,
    sepScore: number,
    sepMember: string,
  ): void {
    const base = node * INNER_STRIDE;
    const n = this.innerSize[node]!;
    this.children.copyWithin(base + i + 1, base + i, base + n);
    this.counts.copyWithin(base + i + 1, base + i, base + n);
    this.sepScores.copyWithin(base + i + 1, base + i, base + n);
    const m = this.sepMembers;
    for (let j = base + n; j > base + i; j--) m[j] = m[j - 1]!;
    this.children[base + i] = child;
    this.counts[base + i] = count;
    this.sepScores[base + i] = sepScore;
    m[base + i] = sepMember;
    this.innerSize[node] = n + 1;
  }

  // ---- structure -----------------------------------------------------------------

  private split(leaf: number, depth: number): void {
    const meta = this.leafMeta;
    const n = meta[leaf * META]!;
    const half = n >>> 1;
    const right = this.newLeaf();
    const lb = leaf * LEAF_STRIDE;
    const rb = right * LEAF_STRIDE;
    if (rb + LEAF_STRIDE > this.leafScores.length) this.growLeafSlots(rb + LEAF_STRIDE);
    const s = this.leafScores;
    const m = this.leafMembers;
    s.copyWithin(rb, lb + half, lb + n);
    for (let j = half; j < n; j++) {
      m[rb + j - half] = m[lb + j]!;
      m[lb + j] = '';
    }
    const leafMeta = this.leafMeta;
    leafMeta[leaf * META] = half;
    leafMeta[right * META] = n - half;
    const next = leafMeta[leaf * META + 1]!;
    leafMeta[right * META + 1] = next;
    if (next !== NONE) leafMeta[next * META + 2] = right;
    leafMeta[right * META + 2] = leaf;
    leafMeta[leaf * META + 1] = right;
    let child = leaf;
    let sibling = right;
    let sepScore = s[rb]!;
    let sepMember = m[rb]!;
    let leftCount = half;
    let rightCount = n - half;
    for (let d = depth - 1; d >= 0; d--) {
      const parent = pathNodes[d]!;
      const i = pathIndex[d]!;
      this.insertChild(parent, i + 1, sibling, rightCount, sepScore, sepMember);
      this.counts[parent * INNER_STRIDE + i] = leftCount;
      const pn = this.innerSize[parent]!;
      if (pn <= INNER_CAP) return;
      const h = pn >>> 1;
      const up = this.newInner();
      const pb = parent * INNER_STRIDE;
      const ub = up * INNER_STRIDE;
      this.children.copyWithin(ub, pb + h, pb + pn);
      this.counts.copyWithin(ub, pb + h, pb + pn);
      this.sepScores.copyWithin(ub, pb + h, pb + pn);
      for (let j = h; j < pn; j++) {
        this.sepMembers[ub + j - h] = this.sepMembers[pb + j]!;
        this.sepMembers[pb + j] = '';
      }
      this.innerSize[parent] = h;
      this.innerSize[up] = pn - h;
      child = parent;
      sibling = up;
      sepScore = this.sepScores[ub]!;
      sepMember = this.sepMembers[ub]!;
      leftCount = this.sumCounts(parent);
      rightCount = this.sumCounts(up);
    }
    // The root split: a new root above both halves.
    const root = this.newInner();
    this.appendRaw(root, child, leftCount, Number.NEGATIVE_INFINITY, '');
    this.appendRaw(root, sibling, rightCount, sepScore, sepMember);
    this.root = root;
    this.height++;
  }

  private appendRaw(
    node: number,
    child: number,
    count: number,
    sepScore: number,
    sepMember: string,
  ): void {
    const at = node * INNER_STRIDE + this.innerSize[node]!;
    this.children[at] = child;
    this.counts[at] = count;
    this.sepScores[at] = sepScore;
    this.sepMembers[at] = sepMember;
    this.innerSize[node]!++;
  }

  /** After a delete from `leaf` (below pathNodes[0..depth)): drop or merge a thin leaf. */
  private shrink(leaf: number, depth: number): void {
    const parent = pathNodes[depth - 1]!;
    const i = pathIndex[depth - 1]!;
    const meta = this.leafMeta;
    const n = meta[leaf * META]!;
    if (n === 0) {
      this.freeLeaf(leaf);
      this.removeChild(depth - 1, i);
      return;
    }
    if (n >= MERGE_BELOW || i + 1 >= this.innerSize[parent]!) return;
    const right = this.children[parent * INNER_STRIDE + i + 1]!;
    const rn = meta[right * META]!;
    if (n + rn > LEAF_CAP >>> 1) return;
    // The right sibling's pairs move left; its separator goes, which only
    // widens this leaf's range up to the next separator.
    const lb = leaf * LEAF_STRIDE;
    const rb = right * LEAF_STRIDE;
    this.leafScores.copyWithin(lb + n, rb, rb + rn);
    for (let j = 0; j < rn; j++) this.leafMembers[lb + n + j] = this.leafMembers[rb + j]!;
    meta[leaf * META] = n + rn;
    this.counts[parent * INNER_STRIDE + i]! += rn;
    this.freeLeaf(right);
    this.removeChild(depth - 1, i + 1);
  }

  /** Removes child `i` of pathNodes[d]; an inner node left empty goes too, a root of one child collapses. */
  private removeChild(d: number, i: number): void {
    const node = pathNodes[d]!;
    const base = node * INNER_STRIDE;
    const n = this.innerSize[node]! - 1;
    this.children.copyWithin(base + i, base + i + 1, base + n + 1);
    this.counts.copyWithin(base + i, base + i + 1, base + n + 1);
    this.sepScores.copyWithin(base + i, base + i + 1, base + n + 1);
    const m = this.sepMembers;
    for (let j = base + i; j < base + n; j++) m[j] = m[j + 1]!;
    m[base + n] = '';
    this.innerSize[node] = n;
    if (n === 0 && d > 0) {
      this.freeInner(node);
      this.removeChild(d - 1, pathIndex[d - 1]!);
      return;
    }
    while (this.height > 0 && this.innerSize[this.root] === 1) {
      const old = this.root;
      this.root = this.children[old * INNER_STRIDE]!;
      this.freeInner(old);
      this.height--;
    }
  }
}
