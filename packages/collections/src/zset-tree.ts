/**
 * The ordered half of a sorted set: an order-statistic B+tree of
 * (score, member) pairs, ordered by score, then member bytes (members are
 * latin1 strings, one char per byte, so `<` on them is memcmp).
 *
 * Leaves hold up to LEAF_CAP pairs in two parallel arrays and are linked
 * both ways, so a range walks leaf by leaf. Inner nodes hold each child's
 * element count and a separator (the first pair the child had when it was
 * split off): every pair of child i is >= separator i and < separator i+1.
 * Deletes never need to fix separators (the bound stays true), which keeps
 * them as cheap as inserts. Insert, delete, rank and the n-th pair cost
 * O(log n) node visits, each O(LEAF_CAP) at most: one-member writes on a
 * 1M-member set cost about what they cost on a 1K one.
 */

export const LEAF_CAP = 128;
const INNER_CAP = 64;
/** A leaf this empty takes its right sibling in when both fit in half a leaf. */
const MERGE_BELOW = LEAF_CAP / 4;

export class ZLeaf {
  readonly leaf = true;
  scores: number[] = [];
  members: string[] = [];
  next: ZLeaf | null = null;
  prev: ZLeaf | null = null;
}

class ZInner {
  readonly leaf = false;
  children: ZNode[] = [];
  counts: number[] = [];
  sepScores: number[] = [];
  sepMembers: string[] = [];
}

type ZNode = ZLeaf | ZInner;

/** `(s1, m1)` against `(s2, m2)`: negative, 0 or positive. */
export function compareEntries(s1: number, m1: string, s2: number, m2: string): number {
  if (s1 < s2) return -1;
  if (s1 > s2) return 1;
  if (m1 < m2) return -1;
  if (m1 > m2) return 1;
  return 0;
}

/**
 * Bounds for `countBefore`: which pairs lie before the bound. Each is
 * monotone in the tree's order, so the count is the rank where it starts.
 */
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

/** A position in the tree: a leaf and an index in it. */
export class ZCursor {
  constructor(
    public leaf: ZLeaf | null,
    public index: number,
  ) {}

  get valid(): boolean {
    return this.leaf !== null;
  }
  get score(): number {
    return this.leaf!.scores[this.index]!;
  }
  get member(): string {
    return this.leaf!.members[this.index]!;
  }
  next(): void {
    const l = this.leaf!;
    if (++this.index < l.members.length) return;
    this.leaf = l.next;
    this.index = 0;
  }
  prev(): void {
    if (--this.index >= 0) return;
    this.leaf = this.leaf!.prev;
    this.index = this.leaf === null ? 0 : this.leaf.members.length - 1;
  }
}

// The path of a descent, reused by every operation (one tree runs at a time).
const pathNodes: ZInner[] = [];
const pathIndex: number[] = [];

export class ScoreTree {
  private root: ZNode = new ZLeaf();
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The leftmost and rightmost leaves. */
  get first(): ZLeaf {
    let n = this.root;
    while (!n.leaf) n = n.children[0]!;
    return n;
  }
  get last(): ZLeaf {
    let n = this.root;
    while (!n.leaf) n = n.children[n.children.length - 1]!;
    return n;
  }

  /** Adds a pair that is not in the tree. */
  insert(score: number, member: string): void {
    let node = this.root;
    let depth = 0;
    while (!node.leaf) {
      const i = childFor(node, score, member);
      node.counts[i]!++;
      pathNodes[depth] = node;
      pathIndex[depth++] = i;
      node = node.children[i]!;
    }
    const pos = leafLowerBound(node, score, member);
    node.scores.splice(pos, 0, score);
    node.members.splice(pos, 0, member);
    this.count++;
    if (node.members.length > LEAF_CAP) this.split(node, depth);
  }

  /** Removes a pair; false when it is not there. */
  remove(score: number, member: string): boolean {
    let node = this.root;
    let depth = 0;
    while (!node.leaf) {
      const i = childFor(node, score, member);
      pathNodes[depth] = node;
      pathIndex[depth++] = i;
      node = node.children[i]!;
    }
    const pos = leafLowerBound(node, score, member);
    if (node.members[pos] !== member || node.scores[pos] !== score) return false;
    node.scores.splice(pos, 1);
    node.members.splice(pos, 1);
    this.count--;
    for (let d = 0; d < depth; d++) pathNodes[d]!.counts[pathIndex[d]!]!--;
    if (depth > 0) this.shrink(node, depth);
    return true;
  }

  /** 0-based rank of a pair in the tree, or -1. */
  rank(score: number, member: string): number {
    let node = this.root;
    let rank = 0;
    while (!node.leaf) {
      const i = childFor(node, score, member);
      for (let j = 0; j < i; j++) rank += node.counts[j]!;
      node = node.children[i]!;
    }
    const pos = leafLowerBound(node, score, member);
    if (node.members[pos] !== member || node.scores[pos] !== score) return -1;
    return rank + pos;
  }

  /** A cursor on the pair of rank `rank` (0 <= rank < size). */
  at(rank: number): ZCursor {
    let node = this.root;
    let r = rank;
    while (!node.leaf) {
      let i = 0;
      while (r >= node.counts[i]!) r -= node.counts[i++]!;
      node = node.children[i]!;
    }
    return new ZCursor(node, r);
  }

  /** How many pairs lie before the bound (the rank where it starts). */
  countBefore(mode: Before, score: number, member: string): number {
    let node = this.root;
    let n = 0;
    while (!node.leaf) {
      const seps = node.sepScores;
      const sepm = node.sepMembers;
      // Every pair of child i is < separator i+1: when that separator is
      // before the bound, the whole child is.
      let i = 0;
      const last = node.children.length - 1;
      while (i < last && before(mode, seps[i + 1]!, sepm[i + 1]!, score, member)) {
        n += node.counts[i++]!;
      }
      node = node.children[i]!;
    }
    let lo = 0;
    let hi = node.members.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(mode, node.scores[mid]!, node.members[mid]!, score, member)) lo = mid + 1;
      else hi = mid;
    }
    return n + lo;
  }

  /** Every pair in order (for encode and conversion). */
  forEach(fn: (score: number, member: string) => void): void {
    for (let l: ZLeaf | null = this.first; l !== null; l = l.next) {
      const s = l.scores;
      const m = l.members;
      for (let i = 0; i < m.length; i++) fn(s[i]!, m[i]!);
    }
  }

  /** Builds a tree from pairs already in order, leaves filled to 3/4 (appends stay cheap). */
  static fromSorted(scores: readonly number[], members: readonly string[]): ScoreTree {
    const t = new ScoreTree();
    const n = members.length;
    if (n <= LEAF_CAP) {
      const leaf = t.root as ZLeaf;
      leaf.scores = scores.slice();
      leaf.members = members.slice();
      t.count = n;
      return t;
    }
    const per = (LEAF_CAP * 3) >>> 2;
    let level: ZNode[] = [];
    let prev: ZLeaf | null = null;
    for (let i = 0; i < n; i += per) {
      const l = new ZLeaf();
      l.scores = scores.slice(i, i + per);
      l.members = members.slice(i, i + per);
      l.prev = prev;
      if (prev !== null) prev.next = l;
      prev = l;
      level.push(l);
    }
    const innerPer = (INNER_CAP * 3) >>> 2;
    while (level.length > 1) {
      const up: ZNode[] = [];
      for (let i = 0; i < level.length; i += innerPer) {
        const inner = new ZInner();
        for (const child of level.slice(i, i + innerPer)) appendChild(inner, child);
        up.push(inner);
      }
      level = up;
    }
    t.root = level[0]!;
    t.count = n;
    return t;
  }

  // ---- structure -----------------------------------------------------------------

  private split(leaf: ZLeaf, depth: number): void {
    const half = leaf.members.length >>> 1;
    const right = new ZLeaf();
    right.scores = leaf.scores.splice(half);
    right.members = leaf.members.splice(half);
    right.next = leaf.next;
    if (right.next !== null) right.next.prev = right;
    right.prev = leaf;
    leaf.next = right;
    let child: ZNode = leaf;
    let sibling: ZNode = right;
    let sepScore = right.scores[0]!;
    let sepMember = right.members[0]!;
    let leftCount = leaf.members.length;
    let rightCount = right.members.length;
    for (let d = depth - 1; d >= 0; d--) {
      const parent = pathNodes[d]!;
      const i = pathIndex[d]!;
      parent.children.splice(i + 1, 0, sibling);
      parent.counts[i] = leftCount;
      parent.counts.splice(i + 1, 0, rightCount);
      parent.sepScores.splice(i + 1, 0, sepScore);
      parent.sepMembers.splice(i + 1, 0, sepMember);
      if (parent.children.length <= INNER_CAP) return;
      const h = parent.children.length >>> 1;
      const up = new ZInner();
      up.children = parent.children.splice(h);
      up.counts = parent.counts.splice(h);
      up.sepScores = parent.sepScores.splice(h);
      up.sepMembers = parent.sepMembers.splice(h);
      child = parent;
      sibling = up;
      sepScore = up.sepScores[0]!;
      sepMember = up.sepMembers[0]!;
      leftCount = sum(parent.counts);
      rightCount = sum(up.counts);
    }
    // The root split: a new root above both halves.
    const root = new ZInner();
    root.children = [child, sibling];
    root.counts = [leftCount, rightCount];
    root.sepScores = [Number.NEGATIVE_INFINITY, sepScore];
    root.sepMembers = ['', sepMember];
    this.root = root;
  }

  /** After a delete from `leaf` (below pathNodes[0..depth)): drop or merge a thin leaf. */
  private shrink(leaf: ZLeaf, depth: number): void {
    const parent = pathNodes[depth - 1]!;
    const i = pathIndex[depth - 1]!;
    const n = leaf.members.length;
    if (n === 0) {
      unlink(leaf);
      this.removeChild(depth - 1, i);
      return;
    }
    if (n >= MERGE_BELOW || i + 1 >= parent.children.length) return;
    const right = parent.children[i + 1] as ZLeaf;
    if (n + right.members.length > LEAF_CAP >>> 1) return;
    // The right sibling's pairs move left; its separator goes, which only
    // widens this leaf's range up to the next separator.
    for (let j = 0; j < right.members.length; j++) {
      leaf.scores.push(right.scores[j]!);
      leaf.members.push(right.members[j]!);
    }
    parent.counts[i]! += right.members.length;
    unlink(right);
    this.removeChild(depth - 1, i + 1);
  }

  /** Removes child `i` of pathNodes[d]; an inner node left empty goes too, a root of one child collapses. */
  private removeChild(d: number, i: number): void {
    const node = pathNodes[d]!;
    node.children.splice(i, 1);
    node.counts.splice(i, 1);
    node.sepScores.splice(i, 1);
    node.sepMembers.splice(i, 1);
    if (node.children.length === 0 && d > 0) {
      this.removeChild(d - 1, pathIndex[d - 1]!);
      return;
    }
    let root = this.root;
    while (!root.leaf && root.children.length === 1) root = root.children[0]!;
    this.root = root;
  }
}

function sum(a: readonly number[]): number {
  let s = 0;
  for (const x of a) s += x;
  return s;
}

function unlink(leaf: ZLeaf): void {
  if (leaf.prev !== null) leaf.prev.next = leaf.next;
  if (leaf.next !== null) leaf.next.prev = leaf.prev;
  leaf.prev = null;
  leaf.next = null;
}

function appendChild(inner: ZInner, child: ZNode): void {
  inner.children.push(child);
  if (child.leaf) {
    inner.counts.push(child.members.length);
    inner.sepScores.push(child.scores[0]!);
    inner.sepMembers.push(child.members[0]!);
  } else {
    inner.counts.push(sum(child.counts));
    inner.sepScores.push(child.sepScores[0]!);
    inner.sepMembers.push(child.sepMembers[0]!);
  }
}

/** The child whose range holds (score, member): the last one whose separator is <= it. */
function childFor(node: ZInner, score: number, member: string): number {
  const s = node.sepScores;
  const m = node.sepMembers;
  let lo = 1;
  let hi = node.children.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareEntries(s[mid]!, m[mid]!, score, member) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** The first index of the leaf whose pair is >= (score, member). */
function leafLowerBound(leaf: ZLeaf, score: number, member: string): number {
  const s = leaf.scores;
  const m = leaf.members;
  let lo = 0;
  let hi = m.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareEntries(s[mid]!, m[mid]!, score, member) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
