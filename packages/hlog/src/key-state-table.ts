/**
 * The newest state of every distinct key, for a whole-log recount of live
 * keys (recovery without a count in a checkpoint). A Map with a string per
 * key took ~120 bytes a key (1.2 GB and 24 s for 10M keys); here the keys
 * are copied into 1 MiB arena chunks (4-byte length + bytes) and an
 * open-addressing table of typed arrays holds hash, arena position and
 * state: ~34 bytes a key plus the key bytes, no object per key. Exact: keys
 * are compared byte for byte.
 */

const CHUNK = 1 << 20;
const MAX_LOAD = 0.7;

export class KeyStateTable {
  /** hash + 1 per slot (0: empty). */
  private hashes: Float64Array;
  /** Arena position of the key: chunk * CHUNK + offset. */
  private refs: Float64Array;
  private states: Float64Array;
  private mask: number;
  private readonly chunks: Buffer[] = [];
  private used = CHUNK;
  size = 0;

  constructor(expectedKeys: number) {
    let capacity = 1024;
    while (capacity * MAX_LOAD < expectedKeys) capacity *= 2;
    this.mask = capacity - 1;
    this.hashes = new Float64Array(capacity);
    this.refs = new Float64Array(capacity);
    this.states = new Float64Array(capacity);
  }

  /**
   * Sets the state of the key `bytes[offset, offset + length)` (48-bit
   * `hash`); returns its previous state, or NaN when the key is new.
   */
  set(bytes: Uint8Array, offset: number, length: number, hash: number, state: number): number {
    const tag = hash + 1;
    let i = hash & this.mask;
    for (;;) {
      const h = this.hashes[i]!;
      if (h === 0) break;
      if (h === tag && this.keyAt(this.refs[i]!, bytes, offset, length)) {
        const previous = this.states[i]!;
        this.states[i] = state;
        return previous;
      }
      i = (i + 1) & this.mask;
    }
    this.hashes[i] = tag;
    this.refs[i] = this.store(bytes, offset, length);
    this.states[i] = state;
    if (++this.size > (this.mask + 1) * MAX_LOAD) this.grow();
    return Number.NaN;
  }

  /** Calls `fn` with the state of every key. */
  forEachState(fn: (state: number) => void): void {
    for (let i = 0; i <= this.mask; i++) if (this.hashes[i] !== 0) fn(this.states[i]!);
  }

  private keyAt(ref: number, bytes: Uint8Array, offset: number, length: number): boolean {
    const chunk = this.chunks[Math.floor(ref / CHUNK)]!;
    let at = ref % CHUNK;
    if (chunk.readUInt32LE(at) !== length) return false;
    at += 4;
    for (let j = 0; j < length; j++) if (chunk[at + j] !== bytes[offset + j]) return false;
    return true;
  }

  private store(bytes: Uint8Array, offset: number, length: number): number {
    if (this.used + 4 + length > CHUNK) {
      this.chunks.push(Buffer.allocUnsafe(CHUNK));
      this.used = 0;
    }
    const chunk = this.chunks[this.chunks.length - 1]!;
    const at = this.used;
    chunk.writeUInt32LE(length, at);
    chunk.set(bytes.subarray(offset, offset + length), at + 4);
    // 4-aligned entries: the length word stays aligned.
    this.used = (at + 4 + length + 3) & ~3;
    return (this.chunks.length - 1) * CHUNK + at;
  }

  private grow(): void {
    const { hashes, refs, states } = this;
    const capacity = (this.mask + 1) * 2;
    this.mask = capacity - 1;
    this.hashes = new Float64Array(capacity);
    this.refs = new Float64Array(capacity);
    this.states = new Float64Array(capacity);
    for (let j = 0; j < hashes.length; j++) {
      const tag = hashes[j]!;
      if (tag === 0) continue;
      let i = (tag - 1) & this.mask;
      while (this.hashes[i] !== 0) i = (i + 1) & this.mask;
      this.hashes[i] = tag;
      this.refs[i] = refs[j]!;
      this.states[i] = states[j]!;
    }
  }
}
