import type { StreamId } from './stream-id.js';

/** A consumer of a group: its name, times and how many entries it has pending. */
export class StreamConsumer {
  /** Entries of the group's PEL owned by this consumer. */
  pending = 0;

  constructor(
    readonly name: string,
    /** Last time it was seen (any read, claim or ack attempt), ms. */
    public seenTime: number,
    /** Last time it got or claimed entries, ms (-1: never). */
    public activeTime = -1,
  ) {}
}

/** A delivered, not yet acknowledged entry (a PEL entry). */
export interface PendingEntry {
  readonly id: StreamId;
  consumer: StreamConsumer;
  deliveryTime: number;
  deliveryCount: number;
}

/**
 * A consumer group: the ID it delivered last, how many entries it has
 * read (-1: not known, printed as nil), its consumers and its PEL, in ID
 * order (a sorted array beside a Map: deliveries append at the end as they
 * come in ID order; a claim of an older ID is a binary-search insert).
 * An ack leaves its ID in the array, dead (no longer in the Map), and the
 * array is compacted once half of it is dead: acks come mostly from the
 * oldest end, where removing in place would move every later ID each time.
 */
export class StreamGroup {
  readonly consumers = new Map<string, StreamConsumer>();
  private readonly pel = new Map<StreamId, PendingEntry>();
  /** The PEL's IDs in order, and `dead` IDs acked since the last compaction. */
  private order: StreamId[] = [];
  private dead = 0;

  constructor(
    readonly name: string,
    public lastId: StreamId,
    public entriesRead: number,
  ) {}

  get pendingCount(): number {
    return this.pel.size;
  }

  /** The consumer `name`, created (seen now) when `create` and it does not exist. */
  consumer(name: string, now: number, create: boolean): StreamConsumer | undefined {
    let c = this.consumers.get(name);
    if (c === undefined && create) {
      c = new StreamConsumer(name, now);
      this.consumers.set(name, c);
    }
    return c;
  }

  /** Removes consumer `name` and its PEL entries; returns how many it had pending (-1: none such). */
  deleteConsumer(name: string): number {
    const c = this.consumers.get(name);
    if (c === undefined) return -1;
    const had = c.pending;
    if (had > 0) {
      for (const id of this.order) {
        if (this.pel.get(id)?.consumer === c) this.pel.delete(id);
      }
      this.compact();
    }
    this.consumers.delete(name);
    return had;
  }

  pending(id: StreamId): PendingEntry | undefined {
    return this.pel.get(id);
  }

  /**
   * Records `id` as delivered to `consumer` now; an entry already pending
   * changes owner and its delivery time and count are reset to (now, 1).
   */
  deliver(id: StreamId, consumer: StreamConsumer, now: number): PendingEntry {
    const had = this.pel.get(id);
    if (had !== undefined) {
      this.setOwner(had, consumer);
      had.deliveryTime = now;
      had.deliveryCount = 1;
      return had;
    }
    const e: PendingEntry = { id, consumer, deliveryTime: now, deliveryCount: 1 };
    consumer.pending++;
    this.pel.set(id, e);
    this.insertOrdered(id);
    return e;
  }

  /** A new PEL entry as a claim or a replay creates it (with its own time and count). */
  insert(
    id: StreamId,
    consumer: StreamConsumer,
    deliveryTime: number,
    deliveryCount: number,
  ): PendingEntry {
    const e: PendingEntry = { id, consumer, deliveryTime, deliveryCount };
    consumer.pending++;
    this.pel.set(id, e);
    this.insertOrdered(id);
    return e;
  }

  /** Moves a PEL entry to `consumer`. */
  setOwner(e: PendingEntry, consumer: StreamConsumer): void {
    if (e.consumer === consumer) return;
    e.consumer.pending--;
    consumer.pending++;
    e.consumer = consumer;
  }

  /** Removes `id` from the PEL (XACK, a deleted entry found by a claim); whether it was there. */
  ack(id: StreamId): boolean {
    const e = this.pel.get(id);
    if (e === undefined) return false;
    e.consumer.pending--;
    this.pel.delete(id);
    const n = this.order.length;
    if (this.order[n - 1] === id) this.order.pop();
    else if (++this.dead > COMPACT_AT && this.dead * 2 > n) this.compact();
    return true;
  }

  /** The PEL entries with `start <= id <= end`, in ID order, while `visit` returns true. */
  forPending(start: StreamId, end: StreamId, visit: (e: PendingEntry) => boolean): void {
    const order = this.order;
    for (let i = this.indexOf(start); i < order.length; i++) {
      const id = order[i]!;
      if (id > end) return;
      const e = this.pel.get(id);
      if (e !== undefined && !visit(e)) return;
    }
  }

  /** First and last pending IDs (undefined when nothing is pending). */
  firstPending(): StreamId | undefined {
    for (const id of this.order) if (this.pel.has(id)) return id;
    return undefined;
  }

  lastPending(): StreamId | undefined {
    for (let i = this.order.length - 1; i >= 0; i--) {
      if (this.pel.has(this.order[i]!)) return this.order[i];
    }
    return undefined;
  }

  /** Drops the dead IDs from `order`. */
  private compact(): void {
    this.order = this.order.filter((id) => this.pel.has(id));
    this.dead = 0;
  }

  /** The index of the first PEL ID >= `id`. */
  private indexOf(id: StreamId): number {
    let lo = 0;
    let hi = this.order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.order[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private insertOrdered(id: StreamId): void {
    const n = this.order.length;
    if (n === 0 || this.order[n - 1]! < id) {
      this.order.push(id);
      return;
    }
    const i = this.indexOf(id);
    // An ID acked, then claimed again (XCLAIM FORCE) is still here, dead: alive again.
    if (this.order[i] === id) this.dead--;
    else this.order.splice(i, 0, id);
  }
}

/** Dead IDs `order` may hold whatever its length (so a small PEL is not compacted on every ack). */
const COMPACT_AT = 32;
