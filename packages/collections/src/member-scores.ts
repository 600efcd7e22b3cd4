/**
 * A large sorted set's member -> score table (Redis's dict beside the
 * skiplist). The Map holds a slot per member and the scores live in a
 * Float64Array at those slots, so changing a score (ZADD or ZINCRBY on a
 * member that is there, the common write) is one Map lookup and a store:
 * no second lookup to set the Map, and no boxed number allocated for a
 * score that is not a small integer.
 */
export class MemberScores {
  private readonly slots = new Map<string, number>();
  private scores: Float64Array;
  private readonly free: number[] = [];
  private top = 0;

  constructor(capacity = 16) {
    this.scores = new Float64Array(Math.max(16, capacity));
  }

  get size(): number {
    return this.slots.size;
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
    return true;
  }
}
