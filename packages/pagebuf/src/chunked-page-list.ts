import { InvalidArgumentError } from '@strata/io';
import { IndexOutOfRangeError } from './errors.js';

/** What a chunk must offer: indexed slots and a length. Typed arrays and plain arrays both fit. */
export interface Chunk<T> {
  [index: number]: T;
  readonly length: number;
}

export interface ChunkedListOptions<T> {
  /** Entries per chunk, a power of two. Default 4096. */
  chunkSize?: number;
  /** Makes an empty chunk of `size` entries. */
  createChunk: (size: number) => Chunk<T>;
}

export const DEFAULT_LIST_CHUNK_SIZE = 4096;

/**
 * A list kept as a directory of fixed-size chunks. Appending allocates a new
 * chunk when the last one is full and never copies earlier entries, so
 * appending entry N costs the same for every N; `get(i)` is two indexings.
 * Truncating from the front drops whole chunks but keeps logical indices:
 * entry i stays entry i for as long as it is held.
 */
export class ChunkedList<T> {
  readonly chunkSize: number;
  readonly #createChunk: (size: number) => Chunk<T>;
  /** `#chunks[k]` is logical chunk `#baseChunk + k`; dropped chunks are `undefined` until compacted. */
  #chunks: (Chunk<T> | undefined)[] = [];
  #baseChunk = 0;
  /** Index into `#chunks` of the first chunk still held. */
  #dirHead = 0;
  #first = 0;
  #length = 0;
  /** log2(chunkSize): chunk numbers by shift while indices fit in 32 bits. */
  readonly #shift: number;
  /** The chunk `append` writes to and the next slot in it; `#tailSlot === chunkSize` means full. */
  #tail: Chunk<T> | undefined = undefined;
  #tailSlot = 0;

  constructor(options: ChunkedListOptions<T>) {
    const chunkSize = options.chunkSize ?? DEFAULT_LIST_CHUNK_SIZE;
    if (!Number.isInteger(chunkSize) || chunkSize < 1 || (chunkSize & (chunkSize - 1)) !== 0) {
      throw new InvalidArgumentError(`chunkSize must be a power of two, got ${chunkSize}`);
    }
    this.chunkSize = chunkSize;
    this.#shift = Math.log2(chunkSize);
    this.#tailSlot = chunkSize;
    this.#createChunk = options.createChunk;
  }

  /** One past the last index appended (the next `append` gets this index). */
  get length(): number {
    return this.#length;
  }

  /** The first index still held; `truncateFront` moves it up. */
  get firstIndex(): number {
    return this.#first;
  }

  /** Entries held: `length - firstIndex`. */
  get size(): number {
    return this.#length - this.#first;
  }

  /** Chunks held now. */
  get chunkCount(): number {
    return this.#chunks.length - this.#dirHead;
  }

  /** Adds `value` at index `length` and returns that index. */
  append(value: T): number {
    if (this.#tailSlot === this.chunkSize) this.#addChunk();
    this.#tail![this.#tailSlot++] = value;
    return this.#length++;
  }

  /** The entry at `index`; throws `IndexOutOfRangeError` outside `[firstIndex, length)`. */
  get(index: number): T {
    this.#check(index);
    const c = this.#chunkOf(index);
    return this.#chunks[c - this.#baseChunk]![index - c * this.chunkSize]!;
  }

  /** Replaces the entry at `index` (which must be held). */
  set(index: number, value: T): void {
    this.#check(index);
    const c = this.#chunkOf(index);
    this.#chunks[c - this.#baseChunk]![index - c * this.chunkSize] = value;
  }

  /** The last entry, or `undefined` when nothing is held. */
  last(): T | undefined {
    return this.#length > this.#first ? this.get(this.#length - 1) : undefined;
  }

  /**
   * Forgets every entry below `index`: `firstIndex` becomes `index` and each
   * chunk wholly below it is dropped for the garbage collector. Indices of
   * the entries kept do not change.
   */
  truncateFront(index: number): void {
    if (!Number.isInteger(index) || index > this.#length) {
      throw new IndexOutOfRangeError(
        `cannot truncate to ${index}: the list ends at ${this.#length}`,
        index,
      );
    }
    if (index <= this.#first) return;
    this.#first = index;
    const firstChunk = this.#chunkOf(index);
    while (this.#baseChunk + this.#dirHead < firstChunk && this.#dirHead < this.#chunks.length) {
      this.#chunks[this.#dirHead] = undefined;
      this.#dirHead++;
    }
    // Compact the directory in place once half of it is dropped slots, so it
    // stays proportional to what is held (amortized O(1) per dropped chunk).
    if (this.#dirHead > 16 && this.#dirHead * 2 > this.#chunks.length) {
      this.#chunks.copyWithin(0, this.#dirHead);
      this.#chunks.length -= this.#dirHead;
      this.#baseChunk += this.#dirHead;
      this.#dirHead = 0;
    }
    if (this.#dirHead === this.#chunks.length) {
      // Everything dropped (`index` is a chunk boundary at `length`): restart
      // the directory at the chunk the next append starts.
      this.#chunks.length = 0;
      this.#baseChunk = firstChunk;
      this.#dirHead = 0;
      this.#tail = undefined;
      this.#tailSlot = this.chunkSize;
    }
  }

  /** Drops every entry; indices restart at `length` (they are never reused). */
  clear(): void {
    this.truncateFront(this.#length);
  }

  /**
   * Calls `fn(value, index)` for each entry in `[from, to)` (default: all
   * held), walking chunk by chunk. Allocates nothing, unlike the iterator.
   */
  forEach(fn: (value: T, index: number) => void, from = this.#first, to = this.#length): void {
    if (from < this.#first || to > this.#length || from > to) {
      throw new IndexOutOfRangeError(
        `range [${from}, ${to}) is outside [${this.#first}, ${this.#length})`,
        from,
      );
    }
    const size = this.chunkSize;
    let i = from;
    while (i < to) {
      const c = this.#chunkOf(i);
      const chunk = this.#chunks[c - this.#baseChunk]!;
      const chunkEnd = Math.min(to, (c + 1) * size);
      for (let j = i - c * size; i < chunkEnd; i++, j++) fn(chunk[j]!, i);
    }
  }

  *values(from = this.#first): IterableIterator<T> {
    for (let i = Math.max(from, this.#first); i < this.#length; i++) yield this.get(i);
  }

  [Symbol.iterator](): IterableIterator<T> {
    return this.values();
  }

  /** Starts the chunk for index `length`: the directory grows by one slot, no entry moves. */
  #addChunk(): void {
    const chunk = this.#createChunk(this.chunkSize);
    this.#chunks[this.#chunkOf(this.#length) - this.#baseChunk] = chunk;
    this.#tail = chunk;
    this.#tailSlot = 0;
  }

  #chunkOf(index: number): number {
    return index < 0x1_0000_0000 ? index >>> this.#shift : Math.floor(index / this.chunkSize);
  }

  #check(index: number): void {
    if (!(index >= this.#first && index < this.#length) || !Number.isInteger(index)) {
      throw new IndexOutOfRangeError(
        `index ${index} is outside [${this.#first}, ${this.#length})`,
        index,
      );
    }
  }
}

/** Typed arrays a `ChunkedPageList` can store numbers in. */
export type NumericArrayConstructor =
  | Float64ArrayConstructor
  | Float32ArrayConstructor
  | Int32ArrayConstructor
  | Uint32ArrayConstructor
  | Int16ArrayConstructor
  | Uint16ArrayConstructor
  | Int8ArrayConstructor
  | Uint8ArrayConstructor;

export interface ChunkedPageListOptions {
  /** Entries per chunk, a power of two. Default 4096. */
  chunkSize?: number;
  /** Element type of the chunks. Default `Float64Array`, exact for addresses below 2^53. */
  arrayType?: NumericArrayConstructor;
}

/**
 * The page directory the log uses: numbers (page addresses, offsets,
 * counts) in typed-array chunks, so a million pages cost a few hundred small
 * allocations and no copying.
 */
export class ChunkedPageList extends ChunkedList<number> {
  constructor(options: ChunkedPageListOptions = {}) {
    const ArrayType = options.arrayType ?? Float64Array;
    super({
      ...(options.chunkSize === undefined ? {} : { chunkSize: options.chunkSize }),
      createChunk: (size) => new ArrayType(size),
    });
  }
}
