import type { CoreState } from './core-state.js';
import { type ChainState, chainStateOf } from './key-count.js';
import { readNewest } from './pending-driver.js';
import { RecordCheck, verifyRecord } from './record-checksum.js';
import {
  align8,
  flagsOf,
  keyEquals,
  keyLengthOf,
  keyOffsetOf,
  previousAddress,
  RecordFlag,
  type RecordSpace,
  spaceOver,
  usedSize,
} from './record-layout.js';
import { FIRST_READ } from './step-codes.js';

/** The most bytes one batched read covers (several starts in one page). */
const MAX_SPAN = 64 << 10;

interface Wanted {
  key: Buffer;
  start: number;
  resolve: (state: ChainState) => void;
  reject: (e: unknown) => void;
}

/**
 * The count's chain reads (a blind write over a version on the device),
 * batched: requests made in the same turn of the event loop are grouped by
 * page and address, and one device read covers every start within
 * `MAX_SPAN` of the group's first (all groups read at once, several in
 * flight). A record found whole in that read with the wanted key answers
 * at once, read where it lies (the count wants its state, not a copy); a
 * chain that goes on (another key first) or a record that does not fit the
 * read continues with the ordinary per-key walk.
 */
export class ResolutionBatch {
  private wanted: Wanted[] = [];
  private scheduled = false;

  constructor(private readonly c: CoreState) {}

  read(key: Buffer, start: number): Promise<ChainState> {
    return new Promise((resolve, reject) => {
      this.wanted.push({ key, start, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.run());
      }
    });
  }

  private run(): void {
    this.scheduled = false;
    const all = this.wanted;
    this.wanted = [];
    all.sort((a, b) => a.start - b.start);
    const P = this.c.log.pageSize;
    let i = 0;
    while (i < all.length) {
      const lo = all[i]!.start;
      const page = Math.floor(lo / P);
      let j = i + 1;
      while (
        j < all.length &&
        Math.floor(all[j]!.start / P) === page &&
        all[j]!.start + FIRST_READ - lo <= MAX_SPAN
      ) {
        j++;
      }
      void this.readGroup(all.slice(i, j), lo, (page + 1) * P);
      i = j;
    }
  }

  private async readGroup(group: Wanted[], lo: number, pageEnd: number): Promise<void> {
    const c = this.c;
    if (lo < c.log.begin) {
      // Truncated below (compaction): the per-key walk decides as before.
      for (const w of group) this.walk(w, w.start);
      return;
    }
    const hi = Math.min(group[group.length - 1]!.start + FIRST_READ, pageEnd);
    // Not zero-filled (an ArrayBuffer of 64 KiB per group was: most of the cost).
    const buf = spaceOver(Buffer.allocUnsafeSlow(hi - lo).buffer as ArrayBuffer);
    let n: number;
    try {
      c.counters.diskReads++;
      n = await c.log.device.read(lo, buf.bytes);
    } catch (e) {
      for (const w of group) w.reject(e);
      return;
    }
    for (const w of group) {
      const off = w.start - lo;
      if (!wholeIn(buf, off, n)) {
        this.walk(w, w.start);
      } else if (
        (flagsOf(buf, off) & RecordFlag.INVALID) === 0 &&
        keyEquals(buf.bytes, keyOffsetOf(buf, off), keyLengthOf(buf, off), w.key)
      ) {
        w.resolve(chainStateOf(buf, off));
      } else {
        const prev = previousAddress(buf, off);
        if (prev === 0 || prev < c.log.begin) w.resolve('absent');
        else this.walk(w, prev);
      }
    }
  }

  private walk(w: Wanted, from: number): void {
    readNewest(this.c, w.key, from).then((space) => w.resolve(chainStateOf(space, 0)), w.reject);
  }
}

/**
 * Whether the record at `off` of `buf` (`n` bytes read) is whole there and
 * verifies (its checksum; one without is left to the per-key read, which
 * checks it through its page and fails on a corrupt one, naming the key).
 */
function wholeIn(buf: RecordSpace, off: number, n: number): boolean {
  if (verifyRecord(buf, off, n - off) !== RecordCheck.OK) return false;
  return align8(usedSize(buf, off)) <= n - off;
}
