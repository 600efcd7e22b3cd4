/**
 * A small, fast, seedable pseudo-random generator (mulberry32). The same seed
 * always yields the same sequence, which keeps fault injection and randomized
 * tests reproducible. Not for cryptography.
 */
export class Prng {
  private state: number;

  constructor(seed = 1) {
    this.state = seed >>> 0;
  }

  /** A uniformly distributed unsigned 32-bit integer. */
  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** An integer in [0, bound). */
  nextInt(bound: number): number {
    return Math.floor(this.next() * bound);
  }

  /** An integer in [min, max] (both inclusive). */
  nextRange(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Fills `into` with pseudo-random bytes. */
  fill(into: Uint8Array): Uint8Array {
    for (let i = 0; i < into.length; i += 4) {
      let v = this.nextUint32();
      for (let j = i; j < i + 4 && j < into.length; j++) {
        into[j] = v & 0xff;
        v >>>= 8;
      }
    }
    return into;
  }
}
