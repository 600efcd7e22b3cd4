import { CorruptRecordError } from './errors.js';
import { isInternalKey } from './internal-keys.js';
import { hashBytes } from './key-hash.js';
import { KeyStateTable } from './key-state-table.js';
import type { RecordSpace } from './record-layout.js';
import { expiresAtOf, flagsOf, RecordFlag } from './record-layout.js';
import { K_EXPIRING, K_PLAIN, K_UNRESOLVED } from './step-codes.js';

/**
 * What the newest record of a key on a chain says of it: nothing there (no
 * record, or a tombstone), a value without expiry, or one with an expiry.
 */
export type ChainState = 'absent' | 'plain' | 'expiring';

/** The state of `key` at the newest of its records on the chain from `start` on the device. */
export type ChainReader = (key: Buffer, start: number) => Promise<ChainState>;

/** The state a record (or its absence) gives its key. */
export function chainStateOf(space: RecordSpace | null, off: number): ChainState {
  if (space === null || (flagsOf(space, off) & RecordFlag.TOMBSTONE) !== 0) return 'absent';
  return expiresAtOf(space, off) === 0 ? 'plain' : 'expiring';
}

/** The live-key count as a checkpoint keeps it. */
export interface KeyCountSnapshot {
  /** Keys whose newest record is a value without expiry. */
  plain: number;
  /** Keys with an expiry (latin1 key, expiresAt), possibly passed. */
  expiring: Array<[string, number]>;
}

/** Keys with an expiry still ahead, and the sum of their remaining times in ms. */
export interface ExpiringTtl {
  readonly count: number;
  readonly ttlSum: number;
}

/**
 * The number of live keys, kept as the store writes (DBSIZE without a
 * scan). Each write reports the key's state before and after it (absent,
 * a value without expiry, a value with an expiry); keys without expiry are
 * a counter, keys with one a table key bytes -> expiresAt (a KeyStateTable:
 * no string made of a key on the write path) counted at the clock's current
 * time. A blind write over a version on the device does not know
 * the state before: a background read of that version (`resolve`) decides.
 */
export class KeyCount {
  /** Keys whose newest record is a value without expiry. */
  plainKeys = 0;
  /** Keys whose newest record is a value with an expiry, and that expiry. */
  private expiring = new KeyStateTable();
  /** Background reads deciding whether a blind write's key existed. */
  private readonly resolutions = new Set<Promise<void>>();
  private failure: unknown = null;
  /** An upper bound for the plain keys a background recount has yet to add. */
  private provisional = 0;
  /** Where `expireSome` goes on in the table of keys with an expiry. */
  private expiryCursor = 0;
  /** Snapshots taken with resolutions outstanding (markSnapshot): theirs still change them. */
  private readonly marks: { pending: Set<Promise<void>>; plain: number }[] = [];
  /**
   * Hears each key that leaves the table because its expiry passed, once
   * (the store's signal that a key expired: Redis's `expired` event); the
   * key is a copy.
   */
  onExpired: ((key: Buffer) => void) | null = null;

  constructor(
    private readonly clock: () => number,
    private readonly readChain: ChainReader,
  ) {}

  /**
   * Applies a write of `key` from state `prev` to `exp` (-1 deleted, 0 no
   * expiry); an unresolved `prev` is read from the chain at `diskStart`.
   */
  changed(key: Uint8Array, prev: number, exp: number, diskStart: number): void {
    // Strata's own records are no user's keys (see internal-keys.ts).
    if (isInternalKey(key)) return;
    if (prev === K_PLAIN) this.plainKeys--;
    else if (prev === K_UNRESOLVED) this.resolve(key, diskStart);
    // An expiring key that keeps an expiry is overwritten below: one lookup, not two.
    else if (prev === K_EXPIRING && exp <= 0) this.forgetExpiring(key, 0, key.length);
    if (exp === 0) this.plainKeys++;
    else if (exp > 0) this.expiring.set(key, 0, key.length, hashBytes(key, 0, key.length), exp);
  }

  /** Whether `key` is counted as a key with an expiry (passed or not). */
  hasExpiring(key: Uint8Array): boolean {
    const t = this.expiring;
    return t.size > 0 && !Number.isNaN(t.get(key, 0, key.length, hashBytes(key, 0, key.length)));
  }

  /** Drops the key `bytes[offset, offset + length)` from the keys with an expiry (it expired). */
  forgetExpiring(bytes: Uint8Array, offset: number, length: number): void {
    const t = this.expiring;
    if (t.size > 0) t.delete(bytes, offset, length, hashBytes(bytes, offset, length));
  }

  /** `key`'s expiry passed (it was found so): it leaves the table, and `onExpired` hears it. */
  expired(bytes: Uint8Array, offset: number, length: number): void {
    const t = this.expiring;
    if (t.size === 0) return;
    const state = t.delete(bytes, offset, length, hashBytes(bytes, offset, length));
    if (!Number.isNaN(state) && this.onExpired !== null) {
      this.onExpired(Buffer.from(bytes.subarray(offset, offset + length)));
    }
  }

  /**
   * One slice of active expiry over the table (`slots` of it): keys whose
   * expiry passed leave it, wherever their records are, memory or device.
   */
  expireSome(slots: number): void {
    const t = this.expiring;
    if (t.size === 0) return;
    const now = this.clock();
    this.expiryCursor = t.sweepSome(this.expiryCursor, slots, (key, exp) =>
      this.keep(key, exp, now),
    );
  }

  private keep(key: Buffer, exp: number, now: number): boolean {
    if (exp > now) return true;
    this.onExpired?.(Buffer.from(key));
    return false;
  }

  /**
   * The keys with an expiry still ahead and the sum of their remaining
   * times (ms), from the table alone: INFO's `expires` and `avg_ttl` without
   * reading a record. Passed ones are skipped, not removed (the sweeps and
   * `onExpired` own that).
   */
  expiringTtl(): ExpiringTtl {
    const now = this.clock();
    let count = 0;
    let ttlSum = 0;
    this.expiring.forEachState((exp) => {
      if (exp > now) {
        count++;
        ttlSum += exp - now;
      }
    });
    return { count, ttlSum };
  }

  /** Keys counted with an expiry, passed ones included until the next count. */
  get expiringSize(): number {
    return this.expiring.size;
  }

  /**
   * A blind write replaced a version of `key` that is on the device (the
   * chain from `start`): read it in the background, and if it was a value
   * without expiry, the key was counted already.
   */
  private resolve(key: Uint8Array, start: number): void {
    const run: Promise<void> = this.readChain(Buffer.from(key), start)
      .then(
        (state) => {
          if (state === 'plain') this.addPlain(run, -1);
        },
        (e: unknown) => {
          // A damaged old version (reported by the read) counts as a key
          // that was there without expiry, as most are: the count stays
          // usable, off by one at most per damaged key.
          if (e instanceof CorruptRecordError) this.addPlain(run, -1);
          else this.failure ??= e;
        },
      )
      .finally(() => this.resolutions.delete(run));
    this.resolutions.add(run);
  }

  /**
   * Adds the plain keys of the recovered log once `recount` (running in the
   * background after a whole-log rebuild) resolves with their number. The
   * writes made meanwhile are counted as changes from each key's state in
   * that log (read from the device when unknown), so the sum is exact; until
   * then `approx` counts `provisional` (an upper bound) in their place, and
   * `exact` and `settle` wait for it like for a resolution.
   */
  addRecount(recount: Promise<number>, provisional: number): void {
    this.provisional += provisional;
    const run: Promise<void> = recount
      .then(
        (plain) => {
          this.addPlain(run, plain);
        },
        (e: unknown) => {
          this.failure ??= e;
        },
      )
      .finally(() => {
        this.provisional -= provisional;
        this.resolutions.delete(run);
      });
    this.resolutions.add(run);
  }

  /** A resolution `run` decided `delta` plain keys: the count, and the snapshots it was outstanding for. */
  private addPlain(run: Promise<void>, delta: number): void {
    this.plainKeys += delta;
    for (const m of this.marks) if (m.pending.has(run)) m.plain += delta;
  }

  /**
   * The count as of now (a checkpoint's mark), in `encodeKeyCount`'s bytes,
   * without a pause in proportion to the keys: the mark copies only the
   * table of keys with an expiry (its slots; `frozenCopy`), whose entries
   * are then encoded in slices across event-loop turns (passed expiries
   * included: a restore drops them). The background resolutions are not
   * waited for at the mark either: those outstanding then decide writes
   * made before it, so each adds its result to this count too as it
   * finishes; the promise resolves once they all did. Resolutions started
   * later are the later writes' and leave it alone. (Waiting for a moment
   * with none outstanding could wait forever while blind writes keep coming.)
   */
  async markEncoded(): Promise<Uint8Array[]> {
    const table = this.expiring.frozenCopy();
    const mark = { pending: new Set(this.resolutions), plain: this.plainKeys };
    this.marks.push(mark);
    const parts: Uint8Array[] = [];
    try {
      let cursor = 0;
      do {
        const keys: Buffer[] = [];
        const exps: number[] = [];
        let size = 0;
        cursor = table.sweepSome(cursor, COUNT_SLICE_SLOTS, (key, exp) => {
          keys.push(key);
          exps.push(exp);
          size += 4 + key.length + 8;
          return true;
        });
        const b = Buffer.allocUnsafe(size);
        let o = 0;
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i]!;
          b.writeUInt32LE(k.length, o);
          k.copy(b, o + 4);
          o += 4 + k.length;
          b.writeDoubleLE(exps[i]!, o);
          o += 8;
        }
        parts.push(b);
        if (cursor !== 0) await new Promise<void>((resolve) => setImmediate(resolve));
      } while (cursor !== 0);
      await Promise.allSettled([...mark.pending]);
    } finally {
      this.marks.splice(this.marks.indexOf(mark), 1);
    }
    const header = Buffer.allocUnsafe(16);
    header.writeUInt32LE(COUNT_MAGIC, 0);
    header.writeUInt32LE(table.size, 4);
    header.writeDoubleLE(mark.plain, 8);
    return [header, ...parts];
  }

  /** Background reads still deciding the count. */
  get unresolved(): number {
    return this.resolutions.size;
  }

  /** The count now; at least the true count while resolutions are outstanding. */
  approx(): number {
    return this.plainKeys + this.provisional + this.countExpiring();
  }

  /** The exact count, once every outstanding resolution finished. */
  async exact(): Promise<number> {
    while (this.resolutions.size > 0) await Promise.all([...this.resolutions]);
    if (this.failure !== null) throw this.failure;
    return this.plainKeys + this.countExpiring();
  }

  /** Keys with an expiry still ahead; passed ones leave the map for good. */
  private countExpiring(): number {
    const table = this.expiring;
    if (table.size === 0) return 0;
    const now = this.clock();
    table.sweep((key, exp) => this.keep(key, exp, now));
    return table.size;
  }

  /** Waits for outstanding resolutions (close, checkpoint). */
  async settle(): Promise<void> {
    while (this.resolutions.size > 0) await Promise.allSettled([...this.resolutions]);
  }

  /**
   * Sets the count from the newest state of every key (expiresAt, 0 for no
   * expiry, -1 deleted), e.g. from a whole-log pass.
   */
  setFrom(states: Map<string, number>): void {
    const now = this.clock();
    this.plainKeys = 0;
    this.expiring = new KeyStateTable();
    for (const [k, exp] of states) {
      if (exp === 0) this.plainKeys++;
      else if (exp > now) this.setExpiring(k, exp);
    }
  }

  /** The count as of now (call after `settle`, so that it is exact). */
  snapshot(): KeyCountSnapshot {
    this.countExpiring();
    const expiring: Array<[string, number]> = [];
    this.expiring.sweep((key, exp) => {
      expiring.push([key.toString('latin1'), exp]);
      return true;
    });
    return { plain: this.plainKeys, expiring };
  }

  restore(snapshot: KeyCountSnapshot): void {
    this.plainKeys = snapshot.plain;
    this.expiring = new KeyStateTable(snapshot.expiring.length);
    for (const [k, exp] of snapshot.expiring) this.setExpiring(k, exp);
  }

  private setExpiring(latin1: string, exp: number): void {
    const key = Buffer.from(latin1, 'latin1');
    this.expiring.set(key, 0, key.length, hashBytes(key, 0, key.length), exp);
  }
}

const COUNT_MAGIC = 0x544e4f43; // 'CONT'
/** Slots of the expiry table encoded per event-loop turn by `markEncoded`. */
const COUNT_SLICE_SLOTS = 16_384;

/** The count as bytes for a checkpoint: magic, plain (f64), n, then n × (key length, key, expiresAt). */
export function encodeKeyCount(snapshot: KeyCountSnapshot): Buffer {
  let size = 16;
  for (const [k] of snapshot.expiring) size += 4 + k.length + 8;
  const b = Buffer.allocUnsafe(size);
  b.writeUInt32LE(COUNT_MAGIC, 0);
  b.writeUInt32LE(snapshot.expiring.length, 4);
  b.writeDoubleLE(snapshot.plain, 8);
  let o = 16;
  for (const [k, exp] of snapshot.expiring) {
    b.writeUInt32LE(k.length, o);
    b.write(k, o + 4, 'latin1');
    o += 4 + k.length;
    b.writeDoubleLE(exp, o);
    o += 8;
  }
  return b;
}

/** The count from `encodeKeyCount`'s bytes, or null if they do not parse. */
export function decodeKeyCount(b: Uint8Array): KeyCountSnapshot | null {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  if (buf.length < 16 || buf.readUInt32LE(0) !== COUNT_MAGIC) return null;
  const n = buf.readUInt32LE(4);
  const plain = buf.readDoubleLE(8);
  const expiring: Array<[string, number]> = [];
  let o = 16;
  for (let i = 0; i < n; i++) {
    if (o + 4 > buf.length) return null;
    const kl = buf.readUInt32LE(o);
    if (o + 4 + kl + 8 > buf.length) return null;
    expiring.push([buf.toString('latin1', o + 4, o + 4 + kl), buf.readDoubleLE(o + 4 + kl)]);
    o += 4 + kl + 8;
  }
  return o === buf.length && Number.isSafeInteger(plain) && plain >= 0 ? { plain, expiring } : null;
}
