/**
 * Redis's per-object access field (`robj.lru`, 24 bits), kept per hash index
 * entry (hash-index.ts) and computed here as Redis computes it (evict.c):
 *
 * - LRU policies: the LRU clock, seconds modulo 2^24 (LRU_CLOCK_RESOLUTION
 *   1000 ms), stored on each access; idle time is the clock now less it.
 * - LFU policies: 16 bits of minutes (the last decrement time) and an 8-bit
 *   logarithmic counter, new keys at LFU_INIT_VAL; an access decays the
 *   counter by the periods of `lfu-decay-time` minutes elapsed, then
 *   increments it with probability 1 / ((counter - 5) * lfu-log-factor + 1).
 *
 * The clock is cached (`tick`, called by the owner's timer and before a
 * figure is read), so touching an entry on the hot path is one typed-array
 * store under LRU: no clock read per operation, as Redis's serverCron cache.
 */

/** Redis's LRU_CLOCK_MAX: the LRU clock wraps at 2^24 seconds. */
export const LRU_CLOCK_MAX = (1 << 24) - 1;
/** Redis's LFU_INIT_VAL: the counter of a new key. */
export const LFU_INIT_VAL = 5;
const LRU_CLOCK_RESOLUTION = 1000;

export interface AccessPolicy {
  /** An LFU `maxmemory-policy` (the word holds minutes and a counter). */
  readonly lfu: boolean;
  /** `lfu-log-factor` (Redis default 10). */
  readonly logFactor: number;
  /** `lfu-decay-time` in minutes (Redis default 1; 0 never decays). */
  readonly decayTime: number;
}

export class AccessClock {
  /** Whether lookups update the entry's word (off: OBJECT-like lookups, CLIENT NO-TOUCH). */
  touching = true;
  /**
   * Counts the owner's commands: a command that finds its key twice (a
   * probe, then the write) counts one LFU access, as Redis's one lookup.
   */
  command = 0;
  lfu = false;
  logFactor = 10;
  decayTime = 1;
  /** The cached LRU clock (seconds, 24 bits). */
  lru = 0;
  /** The cached LFU time in minutes (16 bits). */
  minutes = 0;
  /** The word a new entry gets: the LRU clock, or the minutes and LFU_INIT_VAL. */
  fresh = 0;
  /** Redis's rand()/RAND_MAX for the counter's increment (tests may fix it). */
  random: () => number = Math.random;

  constructor(private readonly now: () => number) {
    this.tick();
  }

  /** Re-reads the time: the owner's timer calls this (Redis's serverCron). */
  tick(): void {
    const ms = this.now();
    this.lru = Math.floor(ms / LRU_CLOCK_RESOLUTION) & LRU_CLOCK_MAX;
    this.minutes = Math.floor(ms / 60_000) & 0xffff;
    this.fresh = this.lfu ? ((this.minutes << 8) | LFU_INIT_VAL) >>> 0 : this.lru;
  }

  /** Applies `maxmemory-policy`, `lfu-log-factor`, `lfu-decay-time` (words are reinterpreted, as Redis's). */
  configure(policy: AccessPolicy): void {
    this.lfu = policy.lfu;
    this.logFactor = policy.logFactor;
    this.decayTime = policy.decayTime;
    this.tick();
  }

  /** The word after an access to an entry holding `word` (Redis's lookupKey update). */
  touched(word: number): number {
    if (!this.lfu) return this.lru;
    const counter = this.logIncr(this.decayed(word));
    return ((this.minutes << 8) | counter) >>> 0;
  }

  /**
   * The word of a value created with a given frequency or idle time
   * (RESTORE's FREQ, IDLETIME; -1 when not given), as Redis's
   * objectSetLRUOrLFU: only the figure of the policy in force counts.
   */
  created(freq: number, idleSeconds: number): number {
    if (this.lfu) return freq >= 0 ? ((this.minutes << 8) | freq) >>> 0 : this.fresh;
    if (idleSeconds < 0) return this.fresh;
    const abs = this.lru - idleSeconds;
    // Redis: an idle time past the clock's start gives a time half-way ahead.
    return abs >= 0 ? abs : (this.lru + (LRU_CLOCK_MAX >>> 1)) % LRU_CLOCK_MAX;
  }

  /** Redis's estimateObjectIdleTime, in ms. */
  idleMs(word: number): number {
    const lru = word & LRU_CLOCK_MAX;
    const now = this.lru;
    const ticks = now >= lru ? now - lru : now + (LRU_CLOCK_MAX - lru);
    return ticks * LRU_CLOCK_RESOLUTION;
  }

  /** Redis's LFUDecrAndReturn: the counter less one per decay period elapsed. */
  decayed(word: number): number {
    const ldt = (word >>> 8) & 0xffff;
    const counter = word & 0xff;
    if (this.decayTime === 0) return counter;
    const now = this.minutes;
    const elapsed = now >= ldt ? now - ldt : 65535 - ldt + now;
    const periods = Math.floor(elapsed / this.decayTime);
    return periods > counter ? 0 : counter - periods;
  }

  /** Redis's LFULogIncr. */
  private logIncr(counter: number): number {
    if (counter === 255) return 255;
    const base = counter - LFU_INIT_VAL;
    const p = 1 / (Math.max(base, 0) * this.logFactor + 1);
    return this.random() < p ? counter + 1 : counter;
  }
}
