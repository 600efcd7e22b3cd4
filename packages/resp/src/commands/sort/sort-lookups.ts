import type { CollectionLookup, CollectionValue, HashValue } from '@strata/collections';
import { type ReadResult, RecordType } from '@strata/hlog';
import type { Client } from '../../server/client.js';
import { readMissed } from '../shared/expiry.js';

/** A lookup that has to wait for the disk: the computation stops (or skips it) this round. */
export const PENDING: unique symbol = Symbol('sort lookup pending');
export type Pending = typeof PENDING;

/** What one read lookup of a pattern's key gave: its value (null: none), and whether the key was missing. */
interface Looked {
  readonly value: string | null;
  readonly missed: boolean;
}

/** A key a read lookup found missing, published (`expired`, `keymiss`) when the command commits. */
interface Miss {
  readonly key: Buffer;
  readonly waited: boolean;
}

const MISSING: Looked = { value: null, missed: true };

const SORTABLE = [RecordType.LIST, RecordType.SET, RecordType.ZSET] as const;

/**
 * The lookups of one SORT: the sorted key, the keys its BY and GET
 * patterns name, the STORE destination's existence. Synchronous when all
 * are in memory. Otherwise, in the first (ungated) attempt a lookup that
 * goes to the disk makes the whole attempt give up (`PENDING`) before
 * anything is published or written; the command then runs `gated`: with
 * every other client held (the server's exclusive gate), it issues every
 * lookup of a round together, keeps what the disk gave (`carried`: since
 * no other command runs meanwhile, it stays the keys' value even when the
 * cache lets it go), and runs the computation again, until one round
 * finds everything. Each round of misses is dropped but the last one's.
 */
export class SortLookups {
  private misses: Miss[] = [];
  private readonly carried = new Map<string, Looked>();
  private readonly carriedSorted = new Map<number, CollectionLookup>();
  private carriedExists: boolean | undefined;
  private readonly inflight = new Map<string, Promise<void>>();

  constructor(
    private readonly c: Client,
    readonly gated: boolean,
  ) {}

  /** A new round: the misses recorded so far were of a computation given up. */
  startRound(): void {
    this.misses = [];
  }

  /** Waits for every lookup of the round that went to the disk. */
  async settle(): Promise<void> {
    const all = [...this.inflight.values()];
    this.inflight.clear();
    await Promise.all(all);
  }

  /** An ungated attempt given up: its reads in flight are not waited for. */
  abandon(): void {
    for (const p of this.inflight.values()) p.catch(() => undefined);
    this.inflight.clear();
  }

  /** Publishes the misses of the round that ran, in Redis's lookup order. */
  publishMisses(): void {
    for (const m of this.misses) readMissed(this.c, m.key, m.waited);
  }

  /** The collection at `key` if it is a list, set or sorted set; wrongType (its type) otherwise. */
  sorted(key: Buffer): CollectionLookup | Pending {
    let type: number = RecordType.LIST;
    for (let tries = 0; tries < SORTABLE.length; tries++) {
      const r = this.lookupSorted(key, type);
      if (r === PENDING) return PENDING;
      if (r.status !== 'wrongType' || !(SORTABLE as readonly number[]).includes(r.type)) {
        if (r.status === 'missing') this.misses.push({ key, waited: this.gated });
        return r;
      }
      type = r.type;
    }
    return { status: 'wrongType', type };
  }

  private lookupSorted(key: Buffer, type: number): CollectionLookup | Pending {
    const carried = this.carriedSorted.get(type);
    if (carried !== undefined) return carried;
    const r = this.c.collections.get<CollectionValue>(key, type);
    if (!(r instanceof Promise)) return r;
    return this.wait(`sorted:${type}`, r, (x) => this.carriedSorted.set(type, x));
  }

  /** Whether `key` holds anything (the STORE destination: Redis's `new` and `del` depend on it). */
  exists(key: Buffer): boolean | Pending {
    if (this.carriedExists !== undefined) return this.carriedExists;
    const r = this.c.collections.exists(key);
    if (!(r instanceof Promise)) return r;
    return this.wait('exists', r, (x) => {
      this.carriedExists = x;
    });
  }

  /**
   * The value `key` gives a pattern (Redis's lookupKeyByPattern, a read
   * lookup): the string at it, or with `field` that field of the hash at
   * it; null when there is none (a missing key is a miss; another type is not).
   */
  pattern(key: Buffer, field: string | null): string | null | Pending {
    const id = field === null ? `s|${key.toString('latin1')}` : patternId(key, field);
    const carried = this.carried.get(id);
    if (carried !== undefined) return this.took(key, carried, true);
    // A name longer than the store takes names no key (the store would refuse the lookup).
    if (key.length > this.c.store.maxKeyLength) return this.took(key, MISSING, false);
    if (field === null) {
      const v = this.c.store.read(key);
      if (v.status === 'found') {
        if (v.type !== RecordType.STRING) return null;
        return Buffer.from(v.bytes.buffer, v.bytes.byteOffset + v.offset, v.length).toString(
          'latin1',
        );
      }
      if (v.status === 'notFound') return this.took(key, MISSING, false);
      return this.wait(id, v.pending, (r: ReadResult) => this.carried.set(id, stringOf(r)));
    }
    const r = this.c.collections.get<HashValue>(key, RecordType.HASH);
    const now = this.c.now();
    if (!(r instanceof Promise)) return this.took(key, fieldOf(r, field, now), false);
    return this.wait(id, r, (x) => this.carried.set(id, fieldOf(x, field, now)));
  }

  private took(key: Buffer, l: Looked, waited: boolean): string | null {
    if (l.missed) this.misses.push({ key, waited });
    return l.value;
  }

  /**
   * A lookup on the disk: ungated, nothing is kept (the attempt is given
   * up); gated, its result is carried to the next round, one read per key.
   */
  private wait<T>(id: string, p: Promise<T>, keep: (r: T) => void): Pending {
    if (!this.inflight.has(id)) this.inflight.set(id, p.then(this.gated ? keep : () => undefined));
    return PENDING;
  }
}

function patternId(key: Buffer, field: string): string {
  return `h${field.length}:${field}|${key.toString('latin1')}`;
}

function stringOf(r: ReadResult): Looked {
  if (r.status !== 'found') return MISSING;
  return { value: r.type === RecordType.STRING ? r.value.toString('latin1') : null, missed: false };
}

function fieldOf(r: CollectionLookup<HashValue>, field: string, now: number): Looked {
  if (r.status === 'missing') return MISSING;
  if (r.status === 'wrongType') return { value: null, missed: false };
  // A field past its expiry is not there (hidden, not deleted: SORT only reads).
  if (r.value.isExpired(field, now)) return { value: null, missed: false };
  return { value: r.value.get(field) ?? null, missed: false };
}
