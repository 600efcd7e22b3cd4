import { decoderFor, dropStreamBlocks, type StreamValue } from '@strata/collections';
import { RecordType } from '@strata/hlog';
import { CommandEncoder } from '@strata/protocol';
import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { NotifyClass, notify } from '../pubsub/keyspace-events.js';
import { readMissed } from '../shared/expiry.js';
import { readRecord, settled } from '../shared/read-record.js';
import { dumpPayload } from './dump-payload.js';
import { type MigrateArgs, parseMigrate } from './migrate-args.js';
import { type MigrateConnection, MigrateSocketError, migrateSockets } from './migrate-socket.js';
import { rdbValueOf } from './value-bridge.js';

/** A key read for MIGRATE: its record as it was, and the RESTORE that carries it. */
interface Outgoing {
  readonly key: Buffer;
  readonly type: RecordType;
  readonly record: Buffer;
  readonly expiresAt: number;
  readonly payload: Buffer;
}

/** What one exchange with the target gave: its replies, until a socket failure if one came. */
interface Exchange {
  /** The target's first error (AUTH's, SELECT's, then a RESTORE's), without its `-`. */
  readonly targetError: string | null;
  /** Per key sent, whether the target restored it (none when AUTH or SELECT failed). */
  readonly restored: readonly boolean[];
  readonly failure: {
    readonly writing: boolean;
    readonly timeout: boolean;
    /** It came before any RESTORE reply was read (a retry is safe). */
    readonly early: boolean;
  } | null;
}

const AUTH = Buffer.from('AUTH');
const SELECT = Buffer.from('SELECT');
const RESTORE = Buffer.from('RESTORE');
const REPLACE = Buffer.from('REPLACE');

const ioError = (what: 'writing' | 'reading') =>
  new CommandError('ERR_IOERR', `IOERR error or timeout ${what} to target instance`);

/**
 * MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH
 * password | AUTH2 username password] [KEYS key...], as Redis 7.0's
 * migrateCommand: the keys are read (from the disk if there), DUMPed and
 * sent as RESTORE key ttl payload [REPLACE], pipelined after AUTH and a
 * SELECT when the cached connection has another database; the keys the
 * target restored are deleted unless COPY and logged as one DEL.
 *
 * Redis blocks the whole server for the transfer; here only this client
 * waits (its later commands run after the reply): the keys are read with
 * other clients held, the target is waited for with nobody held, and the
 * deletions run with other clients held again. A key another client wrote
 * meanwhile is not deleted (its newer value wins over the copy sent).
 */
export function migrate(c: Client, argv: Buffer[]): CommandResult {
  const args = parseMigrate(argv, (i) => c.redact(i));
  return run(c, argv, args);
}

async function run(c: Client, argv: Buffer[], a: MigrateArgs): Promise<void> {
  const out = await c.server.runExclusive(c, () => readKeys(c, argv, a));
  // Nothing is logged but the DEL of what went.
  c.propagate();
  if (out.length === 0) {
    c.reply.simple('NOKEY');
    return;
  }
  const sockets = c.server.state(migrateSockets);
  let mayRetry = true;
  for (;;) {
    let conn: MigrateConnection;
    try {
      conn = await sockets.get(a.host, a.port, a.timeout);
    } catch (e) {
      if (!(e instanceof MigrateSocketError)) throw e;
      throw new CommandError('ERR_IOERR', 'IOERR error or timeout connecting to the client');
    }
    const x = await conn.use(() => exchange(conn, a, out));
    const f = x.failure;
    if (f !== null) sockets.close(conn.name, conn);
    // Redis retries once on a fresh connection when nothing was processed:
    // a cached connection the target had closed.
    if (f?.early && x.targetError === null && !f.timeout && mayRetry) {
      mayRetry = false;
      continue;
    }
    if (!a.copy) await deleteRestored(c, out, x.restored);
    if (x.targetError !== null) {
      c.replyError(
        new CommandError('ERR_TARGET', `ERR Target instance replied with error: ${x.targetError}`),
      );
    } else if (f !== null) c.replyError(ioError(f.writing ? 'writing' : 'reading'));
    else c.reply.simple('OK');
    return;
  }
}

/** The keys that exist, each with its DUMP payload (lookupKeyRead's misses notified). */
async function readKeys(c: Client, argv: Buffer[], a: MigrateArgs): Promise<Outgoing[]> {
  const out: Outgoing[] = [];
  for (let j = 0; j < a.keyCount; j++) {
    const key = argv[a.firstKey + j]!;
    await c.collections.writeBack(key);
    const read = readRecord(c.store, key);
    const r = await read;
    if (r.status !== 'found') {
      readMissed(c, key, read instanceof Promise);
      continue;
    }
    const value = await rdbValueOf(c.collections, r.type, r.value);
    out.push({
      key,
      type: r.type,
      record: r.value,
      expiresAt: r.expiresAt,
      payload: dumpPayload(c.server, value),
    });
  }
  return out;
}

/** Sends AUTH, SELECT and the RESTOREs in one write and reads their replies (on `conn`'s turn). */
async function exchange(
  conn: MigrateConnection,
  a: MigrateArgs,
  out: readonly Outgoing[],
): Promise<Exchange> {
  const cmd = new CommandEncoder();
  if (a.auth !== null) {
    if (a.auth.username !== null) cmd.encode([AUTH, a.auth.username, a.auth.password]);
    else cmd.encode([AUTH, a.auth.password]);
  }
  const select = conn.lastDb !== a.db;
  if (select) cmd.encode([SELECT, Buffer.from(String(a.db))]);
  // Keys whose TTL passed since they were read are left out (Redis's second look).
  const now = Date.now();
  const sent: number[] = [];
  for (let j = 0; j < out.length; j++) {
    const o = out[j]!;
    let ttl = 0;
    if (o.expiresAt !== 0) {
      ttl = o.expiresAt - now;
      if (ttl < 0) continue;
      if (ttl < 1) ttl = 1;
    }
    sent.push(j);
    const restore = [RESTORE, o.key, Buffer.from(String(Math.floor(ttl))), o.payload];
    cmd.encode(a.replace ? [...restore, REPLACE] : restore);
  }
  const restored: boolean[] = out.map(() => false);
  const failed = (e: unknown, writing: boolean, early: boolean): Exchange => {
    if (!(e instanceof MigrateSocketError)) throw e;
    const timeout = e.code === 'ERR_MIGRATE_TIMEOUT';
    return { targetError: null, restored, failure: { writing, timeout, early } };
  };
  try {
    await conn.write(cmd.take(), a.timeout);
  } catch (e) {
    return failed(e, true, true);
  }
  let authReply = '';
  let selectReply = '';
  try {
    if (a.auth !== null) authReply = await conn.readLine(a.timeout);
    if (select) selectReply = await conn.readLine(a.timeout);
  } catch (e) {
    return failed(e, false, true);
  }
  let targetError: string | null = null;
  if (authReply.startsWith('-')) targetError = authReply.slice(1);
  else if (selectReply.startsWith('-')) targetError = selectReply.slice(1);
  let failure: Exchange['failure'] = null;
  for (let i = 0; i < sent.length; i++) {
    let line: string;
    try {
      line = await conn.readLine(a.timeout);
    } catch (e) {
      failure = failed(e, false, i === 0).failure;
      break;
    }
    if (line.startsWith('-')) targetError ??= line.slice(1);
    else if (!authReply.startsWith('-') && !selectReply.startsWith('-')) {
      restored[sent[i]!] = true;
    }
  }
  // After an error the target's database is not known: SELECT it again next time.
  conn.lastDb = targetError === null && failure === null ? a.db : -1;
  return { targetError, restored, failure };
}

/**
 * Deletes the keys the target restored, with other clients held: each
 * only if its record is still the one sent. Notifies `del` and logs one
 * DEL of them (Redis's rewrite of MIGRATE for replication and the AOF).
 */
async function deleteRestored(
  c: Client,
  out: readonly Outgoing[],
  restored: readonly boolean[],
): Promise<void> {
  if (!restored.includes(true)) return;
  const deleted = await c.server.runExclusive(c, async () => {
    const gone: Buffer[] = [];
    for (let j = 0; j < out.length; j++) {
      if (!restored[j]) continue;
      const o = out[j]!;
      await c.collections.writeBack(o.key);
      const r = await readRecord(c.store, o.key);
      if (
        r.status !== 'found' ||
        r.type !== o.type ||
        r.expiresAt !== o.expiresAt ||
        !r.value.equals(o.record)
      ) {
        continue;
      }
      c.collections.invalidate(o.key);
      await settled(c.store.remove(o.key));
      if (o.type === RecordType.STREAM) {
        const head = decoderFor(RecordType.STREAM)!(o.record) as StreamValue;
        await dropStreamBlocks(head, c.collections);
      }
      notify(c, NotifyClass.generic, 'del', o.key);
      gone.push(o.key);
    }
    return gone;
  });
  if (deleted.length > 0) c.propagate(Buffer.from('DEL'), ...deleted);
}
