import type { HybridLog } from './hybrid-log.js';
import { createRecordSpace, type RecordSpace } from './record-layout.js';
import { FIRST_READ } from './step-codes.js';

/** What a first read needs of the store (its CoreState; not imported: core-state holds an EarlyReads). */
export interface ReadSource {
  readonly log: HybridLog;
  readonly counters: { diskReads: number };
}

/** A record's first read from the device: its space and the bytes the device gave. */
export interface FirstRead {
  readonly space: RecordSpace;
  readonly n: number;
}

/** Early reads kept at most: older ones are forgotten (their reads complete unused). */
export const EARLY_READS_MAX = 256;

/**
 * The first device read of the record at `address` (on some key's chain):
 * FIRST_READ bytes, never past the record's page. One read fetches a whole
 * record up to that size, so a GET of a small value costs one device read.
 */
export async function firstRead(c: ReadSource, address: number): Promise<FirstRead> {
  const P = c.log.pageSize;
  const room = (Math.floor(address / P) + 1) * P - address;
  const space = createRecordSpace(Math.min(FIRST_READ, room));
  c.counters.diskReads++;
  const n = await c.log.device.read(address, space.bytes);
  return { space, n };
}

/**
 * Device reads started before the operations that will want them: a
 * pipelined run's keys whose newest record is on the device (the
 * connection's parse-ahead, `prefetch`) have their first reads issued at
 * once, so the run's GETs wait on the device together instead of one after
 * another. `readRecord` takes a read started here for its address instead
 * of issuing its own; it then verifies the bytes as any read's.
 *
 * Safe because a record below `head` never changes: its page was written
 * once, whole, before it left memory, and addresses are never reused. A
 * read that failed (truncated by compaction meanwhile, the device closed)
 * gives null and the taker reads for itself, meeting the error there.
 * Bounded: at most EARLY_READS_MAX kept; one never taken (its key written
 * meanwhile, in memory again) is forgotten when the ring comes round.
 */
export class EarlyReads {
  private readonly reads = new Map<number, Promise<FirstRead | null>>();
  private readonly ring = new Float64Array(EARLY_READS_MAX);
  private at = 0;

  /** Reads started and not taken (nor forgotten) yet. */
  get size(): number {
    return this.reads.size;
  }

  /** Starts the first read of the record at `address`, unless one is kept already. */
  start(c: ReadSource, address: number): void {
    if (this.reads.has(address)) return;
    const old = this.ring[this.at]!;
    if (old !== 0) this.reads.delete(old);
    this.ring[this.at] = address;
    this.at = (this.at + 1) % EARLY_READS_MAX;
    this.reads.set(
      address,
      firstRead(c, address).catch(() => null),
    );
  }

  /** The read started for `address`, taken (a second taker reads for itself), or undefined. */
  take(address: number): Promise<FirstRead | null> | undefined {
    const read = this.reads.get(address);
    if (read !== undefined) this.reads.delete(address);
    return read;
  }
}
