import type { CollectionStore, HashValue } from '@strata/collections';
import { RecordType, Store } from '@strata/hlog';
import type { ServerState } from '../../server/server-state.js';
import { serverSlot } from '../family.js';
import { NotifyClass, notifyKeyspaceEvent } from '../pubsub/keyspace-events.js';
import { REGISTRY_KEY } from './field-registry.js';

/**
 * The active expiry of hash fields (Redis's hashTypeDbActiveExpire): every
 * TICK_MS, in each open database, a bounded slice of the registry
 * (field-registry.ts) is read from where the last slice stopped; the hashes
 * found due lose their expired fields, at most FIELDS_PER_TICK of them in
 * all, with one `hexpired` event per hash (and `del` when the hash is left
 * empty, deleted). A hash on disk is read in the background and handled at
 * a later tick. Nothing runs while clients are paused, a transaction or
 * script holds the server, or DEBUG SET-ACTIVE-EXPIRE 0 turned the store's
 * active expiry off (reads still hide and drop expired fields).
 */

const TICK_MS = 100;
/** Registry slots looked at per database per tick. */
const SLOTS_PER_TICK = 1000;
/** Due hashes handled per database per tick. */
const HASHES_PER_TICK = 20;
/** Fields deleted per database per tick. */
const FIELDS_PER_TICK = 200;

const HASH = RecordType.HASH;

export class FieldExpiryCycle {
  private timer: NodeJS.Timeout | null = null;
  /** Per database: where the next slice of the registry starts. */
  private readonly cursors = new Map<number, number>();
  /** Databases with a disk read of the cycle in flight. */
  private readonly waiting = new Set<number>();
  /** Per database: registry entries to write (0: drop), kept while the registry is on disk. */
  private readonly moves = new Map<number, Map<string, number>>();
  /** Fields the cycle deleted (tests and INFO-like counters). */
  expiredFields = 0;

  constructor(private readonly server: ServerState) {}

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** One slice in every open database. */
  tick(): void {
    const s = this.server;
    if (s.clientPause.level !== 0 || s.exclusive !== null) return;
    for (let db = 0; db < s.keyspace.count; db++) {
      const store = s.keyspace.get(db);
      // A store FLUSHDB or shutdown has closed is still listed until its
      // replacement opens: nothing of it is read.
      if (store === undefined || store.closed || this.waiting.has(db)) continue;
      if (store instanceof Store && !store.activeExpiry) continue;
      this.slice(db, store.clock());
    }
  }

  private slice(db: number, now: number): void {
    const cs = this.server.keyspace.collections(db);
    if (cs === undefined) return;
    const r = cs.get<HashValue>(REGISTRY_KEY, HASH);
    if (r instanceof Promise) {
      this.wait(db, r);
      return;
    }
    if (r.status !== 'found') {
      this.moves.delete(db);
      return;
    }
    const registry = r.value;
    const due: string[] = [];
    let cursor = this.cursors.get(db) ?? 0;
    let slots = 0;
    do {
      cursor = registry.scan(cursor, 100, (k, at) => {
        if (due.length < HASHES_PER_TICK && Number(at) <= now) due.push(k);
      });
      slots += 100;
    } while (cursor !== 0 && due.length < HASHES_PER_TICK && slots < SLOTS_PER_TICK);
    this.cursors.set(db, cursor);

    let quota = FIELDS_PER_TICK;
    const reads: Promise<unknown>[] = [];
    for (const k of due) {
      if (quota <= 0) break;
      const n = this.expireHash(db, cs, k, now, quota);
      if (n instanceof Promise) {
        // Handled as soon as it is loaded (looked up again at a later tick,
        // its load and the registry's could evict each other for ever).
        reads.push(n.then(() => this.expireHash(db, cs, k, this.clockOf(db), FIELDS_PER_TICK)));
        continue;
      }
      quota -= n;
    }
    if (reads.length > 0) this.wait(db, Promise.all(reads));
    this.applyMoves(db, cs);
  }

  private clockOf(db: number): number {
    return this.server.keyspace.get(db)?.clock() ?? Date.now();
  }

  /**
   * Deletes the due fields of the hash at `k` (up to `quota`), publishes
   * its events and notes its new registry entry; the number deleted, or the
   * hash's load when it is not in memory.
   */
  private expireHash(
    db: number,
    cs: CollectionStore,
    k: string,
    now: number,
    quota: number,
  ): number | Promise<unknown> {
    const key = Buffer.from(k, 'latin1');
    const hr = cs.get<HashValue>(key, HASH);
    if (hr instanceof Promise) return hr;
    const moves = this.movesOf(db);
    if (hr.status !== 'found' || !hr.value.hasFieldTtls) {
      moves.set(k, 0);
      return 0;
    }
    const h = hr.value;
    const gone: string[] = [];
    const n = h.expireFields(now, quota, gone);
    this.expiredFields += n;
    if (n > 0) {
      const s = this.server;
      if (h.size === 0) settle(cs.delete(key));
      else cs.changed(key, h);
      notifyKeyspaceEvent(s, NotifyClass.hash, 'hexpired', key, db);
      if (h.size === 0) notifyKeyspaceEvent(s, NotifyClass.generic, 'del', key, db);
    }
    moves.set(k, h.size === 0 ? 0 : h.minFieldTtl());
    return n;
  }

  private movesOf(db: number): Map<string, number> {
    let m = this.moves.get(db);
    if (m === undefined) {
      m = new Map();
      this.moves.set(db, m);
    }
    return m;
  }

  /** The registry entries noted so far, written once the registry is in memory (else kept for later). */
  private applyMoves(db: number, cs: CollectionStore): void {
    const moves = this.moves.get(db);
    if (moves === undefined || moves.size === 0) return;
    const r = cs.get<HashValue>(REGISTRY_KEY, HASH);
    if (r instanceof Promise) return;
    this.moves.delete(db);
    if (r.status !== 'found') return;
    const reg = r.value;
    for (const [k, at] of moves) {
      if (at === 0) reg.delete(k);
      else reg.set(k, String(at));
    }
    if (reg.size === 0) settle(cs.delete(REGISTRY_KEY));
    else cs.changed(REGISTRY_KEY, reg);
  }

  private wait(db: number, p: Promise<unknown>): void {
    this.waiting.add(db);
    const done = () => this.waiting.delete(db);
    p.then(done, done);
  }
}

/** A delete's write: its failure is the store's write error (StoreHealth), not the cycle's. */
function settle(p: Promise<void> | undefined): void {
  p?.catch(() => undefined);
}

/** The server's cycle, created on first use. */
export const fieldExpiryCycle = serverSlot('field-expiry-cycle', (s) => new FieldExpiryCycle(s));
