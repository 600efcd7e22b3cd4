/**
 * Keys drawn from a Zipfian distribution over `[0, n)` (YCSB's generator,
 * Gray et al., "Quickly generating billion-record synthetic databases"),
 * scrambled: rank r is item `mix(r) mod n`, so the hot items lie all over
 * the keyspace (and the log), not at its start. Theta 0.99 is YCSB's default.
 * Setup is O(n) (zeta(n)); each draw is O(1) and allocates nothing.
 */
export class Zipfian {
  private readonly alpha: number;
  private readonly eta: number;
  private readonly zetan: number;
  private readonly half: number;

  constructor(
    readonly n: number,
    readonly theta = 0.99,
    private readonly random: () => number = Math.random,
  ) {
    if (!Number.isInteger(n) || n < 2) throw new RangeError(`n must be an integer >= 2, got ${n}`);
    if (!(theta > 0 && theta < 1)) throw new RangeError(`theta must be in (0, 1), got ${theta}`);
    let zetan = 0;
    for (let i = 1; i <= n; i++) zetan += 1 / i ** theta;
    const zeta2 = 1 + 1 / 2 ** theta;
    this.zetan = zetan;
    this.alpha = 1 / (1 - theta);
    this.eta = (1 - (2 / n) ** (1 - theta)) / (1 - zeta2 / zetan);
    this.half = 1 + 0.5 ** theta;
  }

  /** The next rank: 0 is the most frequent. */
  nextRank(): number {
    const u = this.random();
    const uz = u * this.zetan;
    if (uz < 1) return 0;
    if (uz < this.half) return 1;
    const r = Math.floor(this.n * (this.eta * u - this.eta + 1) ** this.alpha);
    return r < this.n ? r : this.n - 1;
  }

  /** The next item: the rank scrambled over `[0, n)`. */
  next(): number {
    return scramble(this.nextRank()) % this.n;
  }
}

/** murmur3's 32-bit finalizer: a bijection on u32, so distinct ranks stay apart. */
export function scramble(x: number): number {
  let h = x >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
