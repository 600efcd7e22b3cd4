import { RecordType } from '@strata/hlog';
import type { Client } from '../../server/client.js';
import type { ServerState } from '../../server/server-state.js';
import { clientSlot, type LoggedForm, serverSlot } from '../family.js';

/**
 * Clients blocked on keys (BLPOP, BLMOVE, BZPOPMIN...), per database and
 * key, first come first served, as Redis's blocking_keys.
 *
 * A command that adds to a list or sorted set calls `signalKey` after its
 * change: the clients waiting on that key are served right then, in the
 * order they blocked, while the key has something for them; each one's
 * pop is written to its own reply and its command completes. Serving
 * inside the pushing command keeps Redis's order (the pusher's reply says
 * the length after its push, a pipelined pop after it finds what the
 * blocked clients left) and lets the pusher log the pops with its own
 * command, so an AOF replays them.
 */
export interface Waiter {
  readonly client: Client;
  readonly db: number;
  /** The keys it waits on, as latin1 strings (the queue keys). */
  readonly keys: readonly string[];
  /**
   * Tries to serve the waiter from `key` (just written by `by`): writes
   * its reply and returns the replay forms of what it took, or null when
   * the key holds nothing for it.
   */
  serve(key: Buffer, by: Client): Buffer[][] | null;
  /** Ends the wait: clears the timer, leaves every queue, completes the command. */
  finish(): void;
  /** CLIENT UNBLOCK: answers as a timeout would, or with the UNBLOCKED error, and finishes. */
  unblock(error: boolean): void;
}

export class BlockingRegistry {
  private readonly queues = new Map<number, Map<string, Waiter[]>>();
  private readonly byClient = new Map<Client, Waiter>();
  /** Clients blocked now (INFO clients `blocked_clients`). */
  blocked = 0;
  /** Waited-on keys whose value went, served once the commands in flight end (see signalGone). */
  readonly gone: { db: number; key: string }[] = [];
  goneScheduled = false;

  add(w: Waiter): void {
    this.byClient.set(w.client, w);
    this.blocked++;
    if (w.keys.length === 0) return;
    let byKey = this.queues.get(w.db);
    if (byKey === undefined) {
      byKey = new Map();
      this.queues.set(w.db, byKey);
    }
    for (const k of w.keys) {
      const q = byKey.get(k);
      if (q === undefined) byKey.set(k, [w]);
      else if (!q.includes(w)) q.push(w);
    }
  }

  /** The wait `client` is in, if it is blocked. */
  waiterOf(client: Client): Waiter | undefined {
    return this.byClient.get(client);
  }

  remove(w: Waiter): void {
    // Counted by client, not by queue: a wait on no key (WAIT) is in none.
    if (this.byClient.get(w.client) === w) {
      this.byClient.delete(w.client);
      this.blocked--;
    }
    const byKey = this.queues.get(w.db);
    if (byKey === undefined) return;
    for (const k of w.keys) {
      const q = byKey.get(k);
      if (q === undefined) continue;
      const i = q.indexOf(w);
      if (i === -1) continue;
      q.splice(i, 1);
      if (q.length === 0) byKey.delete(k);
    }
    if (byKey.size === 0) this.queues.delete(w.db);
  }

  /** The waiters on `key` of `db`, oldest first (a live array: serving removes from it). */
  queue(db: number, key: string): Waiter[] | undefined {
    return this.queues.get(db)?.get(key);
  }

  /** The keys of `db` that clients wait on (a copy). */
  keysOf(db: number): string[] {
    const byKey = this.queues.get(db);
    return byKey === undefined ? [] : [...byKey.keys()];
  }
}

/** The clients blocked on keys of one server. */
const registrySlot = serverSlot('blocking', () => new BlockingRegistry());

/** Keys an EXEC made ready for blocked clients, served once it ends (Client.inExec). */
const readyKeysSlot = clientSlot('blocking ready keys', (): { db: number; key: Buffer }[] => []);

export function registryOf(s: ServerState): BlockingRegistry {
  return s.state(registrySlot);
}

/** CLIENT UNBLOCK: ends `client`'s wait (see Waiter.unblock); whether it was blocked. */
export function unblockClient(s: ServerState, client: Client, error: boolean): boolean {
  const w = s.peekState(registrySlot)?.waiterOf(client);
  if (w === undefined) return false;
  w.unblock(error);
  return true;
}

/** Clients blocked on keys now, for INFO clients `blocked_clients`. */
export function blockedClients(s: ServerState): number {
  return s.peekState(registrySlot)?.blocked ?? 0;
}

/**
 * Serves the clients blocked on `key` (in `c`'s database), oldest first,
 * while they take something; returns the replay forms of what they took
 * (a BLMOVE's push may serve others in turn: theirs follow).
 */
export function serveWaiters(c: Client, key: Buffer): Buffer[][] {
  const reg = c.server.peekState(registrySlot);
  if (reg === undefined || reg.blocked === 0) return NO_FORMS;
  const q = reg.queue(c.db, key.toString('latin1'));
  if (q === undefined) return NO_FORMS;
  if (c.inExec) {
    // Redis serves them once the whole transaction ran (a pop queued after
    // the push takes the element first): see serveReadyKeys, the afterExec hook.
    c.state(readyKeysSlot).push({ db: c.db, key: Buffer.from(key) });
    return NO_FORMS;
  }
  let out = NO_FORMS;
  // Every waiter is asked, not only the first: one that finds nothing (an
  // XREAD after a later ID) does not hold up those behind it. After a serve
  // the walk starts over: serving may have changed the queue.
  for (let i = 0; i < q.length; ) {
    const w = q[i]!;
    if (w.client.closed) {
      w.finish();
      continue;
    }
    const forms = w.serve(key, c);
    if (forms === null) {
      i++;
      continue;
    }
    // The key changed under a WATCH of it (the served pop).
    touchWatched(c.server, c.db, key);
    w.finish();
    i = 0;
    if (forms.length > 0) out = out === NO_FORMS ? forms : out.concat(forms);
  }
  return out;
}

const NO_FORMS: Buffer[][] = [];
const NO_LOGGED: readonly LoggedForm[] = [];

/**
 * Serves the waiters on `key` as `c` if `c` is the first of them, and
 * returns the forms to log (else null: `c` was served, timed out or is no
 * longer first, and whoever serves the key next logs its own pops). For a
 * waiter that could not be served synchronously (a key it writes was on
 * the disk or being written back) and serves itself once that key is in
 * memory: its own command, still running while blocked, logs the forms.
 */
export function serveIfFirst(c: Client, key: Buffer): Buffer[][] | null {
  const q = c.server.peekState(registrySlot)?.queue(c.db, key.toString('latin1'));
  if (q === undefined || q[0]?.client !== c || c.closed) return null;
  return serveWaiters(c, key);
}

/**
 * `key` (in `c`'s database) may have gained elements: serve the clients
 * blocked on it. `argv` is the command that wrote; when a command log is
 * on and pops were served, the command is logged as itself followed by
 * the pops, in that order.
 */
export function signalKey(c: Client, key: Buffer, argv: readonly Buffer[]): void {
  const forms = serveWaiters(c, key);
  if (forms.length === 0 || c.server.commandLog === null || c.replay) return;
  c.propagate(...(argv as Buffer[]));
  for (const f of forms) c.propagate(...f);
}

/** A client served a blocked one: the watchers of `key` in `db` see their EXEC fail. */
export function touchWatched(s: ServerState, db: number, key: Buffer): void {
  if (s.watchedKeys === 0) return;
  const set = s.watched.get(db)?.get(key.toString('latin1'));
  if (set !== undefined) for (const w of set) w.watchDirty = true;
}

/**
 * Serves the waiters on `key` of `db` as `c` (its database switched for the
 * synchronous step: the waiters' lookups and writes go through it).
 */
function serveIn(c: Client, db: number, key: Buffer): Buffer[][] {
  if (c.server.keyspace.get(db) === undefined) return NO_FORMS;
  const was = c.db;
  c.db = db;
  try {
    return serveWaiters(c, key);
  } finally {
    c.db = was;
  }
}

/** Reads `key` of `db` into the collection cache, so serving its waiters stays synchronous. */
async function preload(c: Client, db: number, key: Buffer): Promise<void> {
  const collections = c.server.keyspace.collections(db);
  if (collections === undefined) return;
  const r = await collections.get(key, RecordType.LIST);
  if (r.status === 'wrongType' && r.type !== RecordType.STRING) await collections.get(key, r.type);
}

/**
 * `key` of `db` was (re)created by a command that does not push (RENAME,
 * COPY, MOVE): Redis signals it ready, so its blocked clients are served
 * now (after the EXEC when inside one); their pops are logged after the
 * command. Nothing to do, and no await, when nobody waits on it.
 */
export async function signalReady(c: Client, db: number, key: Buffer): Promise<void> {
  const reg = c.server.peekState(registrySlot);
  if (reg === undefined || reg.queue(db, key.toString('latin1')) === undefined) return;
  if (c.inExec) {
    c.state(readyKeysSlot).push({ db, key: Buffer.from(key) });
    return;
  }
  await preload(c, db, key);
  for (const f of serveIn(c, db, key)) c.logAfter(db, f);
}

/**
 * The value of `key` in `db` is gone (deleted, replaced, expired; null:
 * every key, FLUSHDB), heard from the collection caches and the stores'
 * expiry, whichever command did it. As Redis's signalDeletedKeyAsReady, its
 * waiters are served after that command, from what the key holds then: a
 * blocked XREADGROUP answers UNBLOCKED (the key is missing or not a stream)
 * or NOGROUP (a stream without its group); pops and XREADs stay blocked.
 * Nothing to do, and nothing allocated, while nobody is blocked.
 */
export function signalGone(s: ServerState, db: number, key: Uint8Array | null): void {
  const reg = s.peekState(registrySlot);
  if (reg === undefined || reg.blocked === 0) return;
  const keys = key === null ? reg.keysOf(db) : [Buffer.from(key).toString('latin1')];
  for (const k of keys) {
    if (reg.queue(db, k) === undefined) continue;
    if (reg.gone.some((g) => g.db === db && g.key === k)) continue;
    reg.gone.push({ db, key: k });
  }
  if (reg.gone.length === 0 || reg.goneScheduled) return;
  reg.goneScheduled = true;
  setImmediate(() => void serveGone(reg));
}

/** Serves the waiters of the keys that went, once no command is on the disk or holds the server. */
async function serveGone(reg: BlockingRegistry): Promise<void> {
  try {
    while (reg.gone.length > 0) {
      const { db, key } = reg.gone[0]!;
      const first = reg.queue(db, key)?.[0];
      if (first === undefined) {
        reg.gone.shift();
        continue;
      }
      const c = first.client;
      // A command that removed the key and is still on the disk has not ended.
      while (c.server.exclusive !== null || !c.server.othersIdle(c)) {
        if (c.server.exclusive !== null) await c.server.waitExclusive();
        else await c.server.waitIdle(c);
      }
      reg.gone.shift();
      const k = Buffer.from(key, 'latin1');
      try {
        // FLUSHDB reopens the database: its waiters are served on the new one.
        await c.server.keyspace.ensure(db);
        await preload(c, db, k);
        // What serves an entry (XADD, RENAME onto the key) logs it itself;
        // what a gone key leaves is an error reply, which logs nothing.
        for (const f of serveIn(c, db, k)) c.server.commandLog?.append(db, f);
      } catch {
        // The key could not be read (a failing disk): its waiters stay
        // blocked, as for any key they wait on, until served or timed out.
      }
    }
  } finally {
    reg.goneScheduled = false;
  }
}

/** SWAPDB: every key waited on in `db` may hold something now (Redis's scanDatabaseForReadyKeys). */
export async function signalDatabase(c: Client, db: number): Promise<void> {
  const reg = c.server.peekState(registrySlot);
  if (reg === undefined) return;
  for (const k of reg.keysOf(db)) await signalReady(c, db, Buffer.from(k, 'latin1'));
}

/**
 * EXEC ended: serves the keys its commands made ready, in order; returns
 * the replay forms of the pops with their databases.
 */
export function serveReadyKeys(c: Client): readonly LoggedForm[] {
  const pending = c.peekState(readyKeysSlot);
  if (pending === undefined || pending.length === 0) return NO_LOGGED;
  const out: LoggedForm[] = [];
  const ready = pending.splice(0);
  for (const { db, key } of ready) {
    for (const argv of serveIn(c, db, key)) out.push({ db, argv });
  }
  return out;
}
