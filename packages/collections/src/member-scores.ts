/**
 * A large sorted set's member -> score table (Redis's dict beside the
 * skiplist). The Map holds a slot per member and the scores live in a
 * Float64Array at those slots, so changing a score (ZADD or ZINCRBY on a
 * member that is there, the common write) is one Map lookup and a store:
 * no second lookup to set the Map, and no boxed number allocated for a
 * score that is not a small integer.
 */
const MIN_CAPACITY = 16;

export class MemberScores {
  private readonly slots = new Map<string, number>();
  private scores: Float64Array;
  private readonly free: number[] = [];
  private top = 0;

  constructor(capacity = 16) {
    this.scores = new Float64Array(Math.max(MIN_CAPACITY, capacity));
  }

  get size(): number {
    return this.slots.size;
  }

  /** Score slots allocated (the array shrinks when a set is trimmed far below its peak). */
  get capacity(): number {
    return this.scores.length;
  }

  /** The member's slot, or -1 when it is not in the set. */
  slotOf(member: string): number {
    return this.slots.get(member) ?? -1;
  }

  /** The score at a slot from `slotOf`. */
  scoreAt(slot: number): number {
    return this.scores[slot]!;
  }

  /** Changes the score at a slot from `slotOf`. */
  setAt(slot: number, score: number): void {
    this.scores[slot] = score;
  }

  /** The member's score, or undefined. */
  get(member: string): number | undefined {
    const slot = this.slots.get(member);
    return slot === undefined ? undefined : this.scores[slot];
  }

  /** Adds a member that is not in the table. */
  add(member: string, score: number): void {
    let slot = this.free.pop();
    if (slot === undefined) {
      slot = this.top++;
      if (slot === this.scores.length) {
        const grown = new Float64Array(this.scores.length * 2);
        grown.set(this.scores);
        this.scores = grown;
      }
    }
    this.scores[slot] = score;
    this.slots.set(member, slot);
  }

  /** Removes a member; false when it was not there. */
  delete(member: string): boolean {
    const slot = this.slots.get(member);
    if (slot === undefined) return false;
    this.slots.delete(member);
    this.free.push(slot);
    if (this.slots.size * 4 < this.scores.length && this.scores.length > MIN_CAPACITY) {
      this.compact();
    }
    return true;
  }

  /** A set trimmed to a quarter of its peak moves its scores into a smaller array. */
  private compact(): void {
    const next = new Float64Array(Math.max(MIN_CAPACITY, this.slots.size * 2));
    let top = 0;
    for (const [member, slot] of this.slots) {
      next[top] = this.scores[slot]!;
      this.slots.set(member, top++);
    }
    this.scores = next;
    this.top = top;
    this.free.length = 0;
  }
}
