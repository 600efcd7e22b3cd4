import { HlogError } from './errors.js';

/**
 * A copy-on-write snapshot of the hash index, copied in slices while the
 * index keeps serving (HashIndex.beginSnapshot). At its start it holds only
 * the index's header and the list of its chunks (O(chunks), no entry
 * copied); from then on each entry chunk is copied either by a slice
 * (`copySome`) or, if the index is about to write into it first, by the
 * index right before that write (`preserve*`). Every chunk is therefore
 * copied as it was at the start: the bytes are the index of that one
 * moment, in `HashIndex.snapshot()`'s format, however long the copy takes.
 *
 * The access words (LRU/LFU, approximate by nature) are copied beside their
 * entry chunk, but a read's touch does not preserve a chunk: a word may be
 * from a little after the start. Chunks the index adds meanwhile (growth)
 * are not part of the snapshot (its header has the count from the start).
 */
export class IndexSnapshot {
  private readonly primaryCopies: (Uint32Array | null)[];
  private readonly overflowCopies: (Uint32Array | null)[];
  private readonly primaryAccessCopies: (Uint32Array | null)[];
  private readonly overflowAccessCopies: (Uint32Array | null)[];
  /** Chunks still to copy; the next one a slice looks at (primary first, then overflow). */
  private remaining: number;
  private cursor = 0;
  private released = false;

  constructor(
    private readonly header: Uint8Array,
    private readonly primary: readonly Uint32Array[],
    private readonly overflow: readonly Uint32Array[],
    private readonly primaryAccess: readonly Uint32Array[],
    private readonly overflowAccess: readonly Uint32Array[],
    /** Called once, when the copy is complete or abandoned: the index stops preserving. */
    private readonly onRelease: () => void,
  ) {
    this.primaryCopies = new Array<Uint32Array | null>(primary.length).fill(null);
    this.overflowCopies = new Array<Uint32Array | null>(overflow.length).fill(null);
    this.primaryAccessCopies = new Array<Uint32Array | null>(primary.length).fill(null);
    this.overflowAccessCopies = new Array<Uint32Array | null>(overflow.length).fill(null);
    this.remaining = primary.length + overflow.length;
    if (this.remaining === 0) this.release();
  }

  /** Whether every chunk has been copied. */
  get complete(): boolean {
    return this.remaining === 0;
  }

  /** The index will write into primary chunk `c`: copy it first if the snapshot still needs it. */
  preservePrimary(c: number): void {
    if (c < this.primaryCopies.length && this.primaryCopies[c] === null) this.copyPrimary(c);
  }

  /** The index will write into overflow chunk `c`: copy it first if the snapshot still needs it. */
  preserveOverflow(c: number): void {
    if (c < this.overflowCopies.length && this.overflowCopies[c] === null) this.copyOverflow(c);
  }

  private copyPrimary(c: number): void {
    this.primaryCopies[c] = this.primary[c]!.slice();
    this.primaryAccessCopies[c] = this.primaryAccess[c]!.slice();
    this.copied();
  }

  private copyOverflow(c: number): void {
    this.overflowCopies[c] = this.overflow[c]!.slice();
    this.overflowAccessCopies[c] = this.overflowAccess[c]!.slice();
    this.copied();
  }

  private copied(): void {
    if (--this.remaining === 0) this.release();
  }

  /**
   * Copies chunks not copied yet until about `maxBytes` were copied (at
   * least one chunk); returns whether the snapshot is complete.
   */
  copySome(maxBytes: number): boolean {
    let bytes = 0;
    const np = this.primaryCopies.length;
    const total = np + this.overflowCopies.length;
    while (this.remaining > 0 && this.cursor < total && (bytes === 0 || bytes < maxBytes)) {
      const i = this.cursor++;
      if (i < np) {
        if (this.primaryCopies[i] !== null) continue;
        this.copyPrimary(i);
        bytes += this.primary[i]!.byteLength + this.primaryAccess[i]!.byteLength;
      } else {
        const c = i - np;
        if (this.overflowCopies[c] !== null) continue;
        this.copyOverflow(c);
        bytes += this.overflow[c]!.byteLength + this.overflowAccess[c]!.byteLength;
      }
    }
    return this.complete;
  }

  /** Copies everything left at once (the synchronous `HashIndex.snapshot()`). */
  copyAll(): void {
    this.copySome(Number.POSITIVE_INFINITY);
  }

  /** Stops the copy (a failed checkpoint): the index no longer preserves chunks for it. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.onRelease();
  }

  /** The snapshot's bytes, in `HashIndex.snapshot()`'s format; only once complete. */
  parts(): Uint8Array[] {
    if (!this.complete) {
      throw new HlogError('ERR_INVALID_ARGUMENT', 'index snapshot read before its copy completed');
    }
    const bytes = (c: Uint32Array | null): Uint8Array => new Uint8Array(c!.buffer);
    const parts: Uint8Array[] = [this.header];
    for (const c of this.primaryCopies) parts.push(bytes(c));
    parts.push(new Uint8Array(new Uint32Array([this.overflowCopies.length]).buffer));
    for (const c of this.overflowCopies) parts.push(bytes(c));
    // Format 2: the access words, chunk for chunk (the counts above say how many).
    for (const c of this.primaryAccessCopies) parts.push(bytes(c));
    for (const c of this.overflowAccessCopies) parts.push(bytes(c));
    return parts;
  }
}
