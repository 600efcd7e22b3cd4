import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkpointPageSize, HlogError, RecordType, Store, type StoreCore } from '@strata/hlog';
import { DirLock } from '@strata/io';
import { DatabaseDirectories, type LocalClient, RespServer } from '@strata/resp';
import { hasAppendOnlyFile, openAppendOnly } from './append-only-mode.js';
import { CheckpointCommits } from './checkpoint-commits.js';
import { Commands, type Decoder, type KeyEncoding, type KeyOf } from './commands.js';
import type { Durability, SyncPolicy } from './durability.js';
import { fencedDatabases } from './fenced-databases.js';
import type { PersistenceLogger } from './persistence/persistence-logger.js';
import { decodeReply, type Reply } from './reply-value.js';
import { StoreError } from './store-error.js';
import { Transaction } from './transaction.js';
import { TransactionFence } from './transaction-fence.js';
import {
  bytesArg,
  decodeValue,
  decodeView,
  isValueEncoding,
  type KeyInput,
  type ValueEncoding,
  type ValueOf,
  type WriteOf,
} from './value-encoding.js';

export interface OpenOptions<E extends ValueEncoding = 'utf8', K extends KeyEncoding = 'utf8'> {
  /** How values are given and returned. Default 'utf8'. */
  readonly valueEncoding?: E;
  /** How keys, fields and members are returned (scan, smembers...). Default 'utf8'. */
  readonly keyEncoding?: K;
  /**
   * When a write is durable (see SyncPolicy). Default 'always': an
   * acknowledged write survives a crash.
   */
  readonly sync?: SyncPolicy;
  /** A checkpoint every this many ms while something was written. Default 60 000; 0: none. */
  readonly checkpointEveryMs?: number;
  /** Log memory of each database (bytes). Default 64 MiB. */
  readonly memory?: number;
  /**
   * Log page size (bytes) of a new database. Default: the size an existing
   * directory was written with (its checkpoints say; strata-server's is
   * 1 MiB), else 64 KiB: every checkpoint seals the page at the tail, so
   * small pages waste less under `sync: 'always'`. A size given here that
   * differs from the directory's is refused (ERR_PAGE_SIZE_MISMATCH, naming
   * both), never misread.
   */
  readonly pageSize?: number;
  /**
   * Writes go to an append-only file too (`<dir>/appendonlydir`, Redis 7's
   * multi-part AOF), as strata-server with `--appendonly yes` (the same
   * code): `sync` is its fsync policy, each database opens at the
   * checkpoint the AOF names and the AOF replays what came after. Default
   * false; a directory that holds an AOF (strata-server's, or an earlier
   * `appendOnly` open's) must say which: `true` replays it, `false` ignores
   * it (as strata-server with `appendonly no`), and without either the open
   * is refused (ERR_INVALID_ARGUMENT) rather than lose the AOF's tail.
   */
  readonly appendOnly?: boolean;
  /**
   * With `appendOnly`: a commit point of each database that changed this
   * often (ms; strata-server's `commit-interval`): the log up to it is read
   * at recovery, so the AOF replays only what came after. Default 1000; 0:
   * none (the AOF replays everything after the last checkpoint).
   */
  readonly commitEveryMs?: number;
  /**
   * With `appendOnly`: where the databases and the AOF say what they did
   * (opens, recoveries, replays, checkpoints, failures), as strata-server
   * logs it. Default: warnings as process warnings, the rest dropped.
   */
  readonly logger?: PersistenceLogger;
}

/** The default logger: only warnings, as process warnings (stderr unless a listener takes them). */
const WARNINGS_ONLY: PersistenceLogger = {
  debug: () => undefined,
  verbose: () => undefined,
  notice: () => undefined,
  warning: (m) => process.emitWarning(m, { type: 'StrataWarning' }),
};

/** A timer's period in ms (0: none); at most what a Node timer takes (2^31 - 1). */
function intervalOption(value: number | undefined, fallback: number, name: string): number {
  const ms = value ?? fallback;
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > 0x7fffffff) {
    throw new StoreError(
      'ERR_INVALID_ARGUMENT',
      `${name} must be a whole number from 0 to 2147483647`,
    );
  }
  return ms;
}

/** The page size the databases in `root` were written with (their newest checkpoints), if any. */
async function writtenPageSize(root: string): Promise<number | null> {
  const dirs = new DatabaseDirectories(root);
  for (const index of await dirs.stored(16)) {
    const size = await checkpointPageSize(await dirs.pathOf(index));
    if (size !== null) return size;
  }
  return null;
}

/**
 * Syncs the log of every open database (Store.commitLog): their writes so
 * far become durable without an index snapshot. A database closed meanwhile
 * (FLUSHDB, SWAPDB) was checkpointed or dropped by its close.
 */
async function commitLogs(server: RespServer): Promise<void> {
  const runs: Promise<unknown>[] = [];
  for (let i = 0; i < server.keyspace.count; i++) {
    const s = server.keyspace.get(i);
    if (!(s instanceof Store)) continue;
    runs.push(
      s.commitLog().catch((e: unknown) => {
        if (!(e instanceof HlogError && e.code === 'ERR_STORE_CLOSED')) throw e;
      }),
    );
  }
  await Promise.all(runs);
}

/** A read's result without a promise when the record is in memory. */
export type ReadStatus<V> =
  | { readonly status: 'found'; readonly value: V }
  | { readonly status: 'notFound' }
  | { readonly status: 'pending'; readonly pending: Promise<V | undefined> };

/** SCAN's filters. */
export interface ScanOptions {
  /** A glob-style pattern (MATCH). */
  readonly match?: string;
  /** Only keys holding this type (TYPE): 'string', 'hash', 'set', 'zset', 'list', 'stream'. */
  readonly type?: string;
  /** Keys looked at per step (COUNT). Default 100. */
  readonly count?: number;
}

/** One operation of `batch`, as level's. */
export type BatchOperation<V> =
  | { readonly type: 'put'; readonly key: KeyInput; readonly value: WriteOf<V> }
  | { readonly type: 'del'; readonly key: KeyInput };

/** The lock file strata-server takes on its `--dir`: one of either on a directory. */
const LOCK = {
  file: 'strata-server.pid',
  // Whoever holds it: a strata-server or another open database.
  holder: 'strata-server or open @strata/store database',
} as const;

/** Commands a shared client must not run: they change its state for every caller. */
const CLIENT_STATE = new Set([
  'MULTI',
  'EXEC',
  'DISCARD',
  'WATCH',
  'UNWATCH',
  'SELECT',
  'SUBSCRIBE',
  'PSUBSCRIBE',
  'SSUBSCRIBE',
  'UNSUBSCRIBE',
  'PUNSUBSCRIBE',
  'SUNSUBSCRIBE',
  'RESET',
  'HELLO',
  'QUIT',
  'MONITOR',
  'SHUTDOWN',
]);

const WRONG_TYPE = 'WRONGTYPE Operation against a key holding the wrong kind of value';

/**
 * An embedded Strata database: the server's databases, command families and
 * checkpoints in this process. Commands run through strata-server's own
 * dispatcher (RespServer, in process through a LocalClient), so they have
 * Redis's semantics; `get` reads the store directly, as the server's GET does.
 */
export class Database<V = string, K extends KeyEncoding = 'utf8'> extends Commands<V, K> {
  private readonly client: LocalClient;
  private closing: Promise<void> | null = null;

  private constructor(
    /** The RESP server over these databases (not listening unless `serve`d). */
    readonly server: RespServer,
    private readonly durability: Durability,
    private readonly lock: DirLock,
    valueEncoding: ValueEncoding,
    keyEncoding: K,
  ) {
    super(valueEncoding, keyEncoding);
    this.client = server.local();
  }

  /** Opens (creating or recovering) the database in `dir`; see `open`. */
  static async open<E extends ValueEncoding = 'utf8', K extends KeyEncoding = 'utf8'>(
    dir: string,
    options: OpenOptions<E, K> = {},
  ): Promise<Database<ValueOf<E>, K>> {
    const valueEncoding = options.valueEncoding ?? 'utf8';
    if (!isValueEncoding(valueEncoding)) {
      throw new StoreError(
        'ERR_INVALID_ARGUMENT',
        `valueEncoding must be 'buffer', 'utf8' or 'json'`,
      );
    }
    const keyEncoding = (options.keyEncoding ?? 'utf8') as K;
    if (keyEncoding !== 'utf8' && keyEncoding !== 'buffer') {
      throw new StoreError('ERR_INVALID_ARGUMENT', `keyEncoding must be 'buffer' or 'utf8'`);
    }
    const sync = options.sync ?? 'always';
    if (sync !== 'always' && sync !== 'everysec' && sync !== 'no') {
      throw new StoreError('ERR_INVALID_ARGUMENT', `sync must be 'always', 'everysec' or 'no'`);
    }
    const every = intervalOption(options.checkpointEveryMs, 60_000, 'checkpointEveryMs');
    const commitEvery = intervalOption(options.commitEveryMs, 1000, 'commitEveryMs');
    const appendOnly = options.appendOnly;
    if (appendOnly !== undefined && typeof appendOnly !== 'boolean') {
      throw new StoreError('ERR_INVALID_ARGUMENT', 'appendOnly must be true or false');
    }
    const root = resolve(dir);
    mkdirSync(root, { recursive: true });
    // A second open, here or in another process, would write over this one's log.
    const lock = DirLock.acquire(root, LOCK);
    try {
      const store = {
        memory: options.memory ?? 64 << 20,
        pageSize: options.pageSize ?? (await writtenPageSize(root)) ?? 1 << 16,
      };
      if (appendOnly === undefined && hasAppendOnlyFile(root)) {
        throw new StoreError(
          'ERR_INVALID_ARGUMENT',
          `${root} holds an append-only file (appendonlydir): open it with appendOnly: true ` +
            'to replay it (what strata-server --appendonly yes wrote), or appendOnly: false to ' +
            'ignore it; without the one the AOF names, writes after its checkpoint would be lost',
        );
      }
      if (appendOnly === true) {
        const opened = await openAppendOnly(root, store, {
          sync,
          checkpointEveryMs: every,
          commitEveryMs: commitEvery,
          logger: options.logger ?? WARNINGS_ONLY,
        });
        return new Database<ValueOf<E>, K>(
          opened.server,
          opened.durability,
          lock,
          valueEncoding,
          keyEncoding,
        );
      }
      const fence = new TransactionFence();
      let server: RespServer | null = null;
      const commits = new CheckpointCommits(
        sync,
        () => server!.keyspace.saveAll(),
        () => commitLogs(server!),
        fence,
      );
      server = new RespServer({
        databases: fencedDatabases(
          {
            dir: root,
            store: {
              ...store,
              // A crash comes back to the last commit or checkpoint, one
              // moment: never to log pages written after it (strings from a
              // later moment than collections not yet written back, half a
              // transaction), as strata-server without an AOF.
              consistentRecovery: true,
            },
          },
          fence,
        ),
        commandLog: commits,
      });
      await server.start();
      commits.start(every);
      return new Database<ValueOf<E>, K>(server, commits, lock, valueEncoding, keyEncoding);
    } catch (e) {
      lock.release();
      throw e;
    }
  }

  private get store(): StoreCore {
    if (this.closing !== null) throw new StoreError('ERR_CLOSED', 'the database is closed');
    const s = this.server.keyspace.get(0);
    if (s === undefined) throw new StoreError('ERR_CLOSED', 'the database is not open');
    return s;
  }

  protected run<T>(argv: Buffer[], decode: Decoder<T>): Promise<T> {
    if (this.closing !== null) {
      return Promise.reject(new StoreError('ERR_CLOSED', 'the database is closed'));
    }
    return this.client.send(argv).then((bytes) => decode(decodeReply(bytes)));
  }

  /**
   * The value of a string key, or undefined: read from the store directly
   * (no command dispatch), synchronously when the record is in memory.
   * A key holding another type throws ERR_WRONG_TYPE, as GET answers.
   */
  read(key: KeyInput): ReadStatus<V> {
    const v = this.store.read(bytesArg(key, 'key'));
    if (v.status === 'notFound') return v;
    if (v.status === 'pending') {
      return {
        status: 'pending',
        pending: v.pending.then((r) => {
          if (r.status === 'notFound') return undefined;
          if (r.type !== RecordType.STRING) throw new StoreError('ERR_WRONG_TYPE', WRONG_TYPE);
          return decodeValue(this.valueEncoding, r.value) as V;
        }),
      };
    }
    if (v.type !== RecordType.STRING) throw new StoreError('ERR_WRONG_TYPE', WRONG_TYPE);
    // The view is the log's memory: the value is copied (or decoded) out of it.
    const value = decodeView(this.valueEncoding, v.bytes, v.offset, v.offset + v.length);
    return { status: 'found', value: value as V };
  }

  /** GET: the value of a string key, or undefined. */
  get(key: KeyInput): Promise<V | undefined> {
    let r: ReadStatus<V>;
    try {
      r = this.read(key);
    } catch (e) {
      // An argument error is thrown at once, as every method's; a stored one rejects.
      if (e instanceof TypeError) throw e;
      return Promise.reject(e);
    }
    if (r.status === 'found') return Promise.resolve(r.value);
    return r.status === 'notFound' ? Promise.resolve(undefined) : r.pending;
  }

  /**
   * Any command by its Redis name, with Redis's semantics (`command('ZINCRBY',
   * 'z', '2', 'm')`); the reply as values (RESP3: bulk strings as Buffers, doubles as numbers). Commands
   * that change a client's state (MULTI, SELECT, SUBSCRIBE...) are refused:
   * use `transaction`.
   */
  command(name: string, ...args: KeyInput[]): Promise<Reply> {
    if (typeof name !== 'string') throw new TypeError('name must be a string');
    if (CLIENT_STATE.has(name.toUpperCase())) {
      throw new StoreError(
        'ERR_INVALID_ARGUMENT',
        `${name} changes the client's state: use transaction() (a client of its own)`,
      );
    }
    const argv = [Buffer.from(name), ...args.map((a, i) => bytesArg(a, `args[${i}]`))];
    return this.run(argv, (r) => r);
  }

  /**
   * Runs `fn`'s commands as one transaction (MULTI .. EXEC on a client of its
   * own): atomic in memory and on disk (no checkpoint holds part of it;
   * with `appendOnly` a checkpoint waits for its EXEC, up to the AOF's
   * transaction wait, and the AOF replays it whole).
   * `fn` queues commands and must not await their results; the transaction
   * resolves to every command's result, in order (a command that failed as
   * it ran is a StoreError there; the others applied, as in Redis). A
   * command refused before it ran (a wrong arity) rejects the whole
   * transaction with ERR_TRANSACTION_ABORTED: nothing applied.
   */
  async transaction(fn: (tx: Transaction<V, K>) => void): Promise<unknown[]> {
    if (this.closing !== null) throw new StoreError('ERR_CLOSED', 'the database is closed');
    const tx = new Transaction<V, K>(this.valueEncoding, this.keyEncoding);
    fn(tx);
    const client = this.server.local();
    try {
      return await tx.exec((argv) => client.send(argv));
    } finally {
      client.close();
    }
  }

  /** level's batch: puts and deletes applied together, atomically. */
  async batch(operations: readonly BatchOperation<V>[]): Promise<void> {
    await this.transaction((tx) => {
      for (const op of operations) {
        if (op.type === 'put') void tx.set(op.key, op.value);
        else if (op.type === 'del') void tx.del(op.key);
        else throw new TypeError(`batch operation type must be 'put' or 'del'`);
      }
    });
  }

  /** SCAN: every key (once, if it exists from start to end), filtered by MATCH and TYPE. */
  async *scan(options: ScanOptions = {}): AsyncGenerator<KeyOf<K>> {
    const extra: Buffer[] = [];
    if (options.match !== undefined)
      extra.push(Buffer.from('MATCH'), bytesArg(options.match, 'match'));
    if (options.type !== undefined) extra.push(Buffer.from('TYPE'), bytesArg(options.type, 'type'));
    extra.push(Buffer.from('COUNT'), Buffer.from(String(options.count ?? 100)));
    let cursor: Buffer = Buffer.from('0');
    do {
      const [next, keys] = await this.run([Buffer.from('SCAN'), cursor, ...extra], (r) => {
        const [c, ks] = Array.isArray(r) ? r : [];
        return [c as Buffer, this.keyList(ks ?? null)] as const;
      });
      cursor = next;
      yield* keys;
    } while (!(cursor.length === 1 && cursor[0] === 0x30));
  }

  /** The keys matching a glob-style pattern, by SCAN (not KEYS: no long pause). */
  keys(pattern = '*'): AsyncGenerator<KeyOf<K>> {
    return this.scan({ match: pattern });
  }

  /** Takes a checkpoint now (SAVE); resolves once it is on disk. */
  checkpoint(): Promise<void> {
    return this.durability.checkpoint();
  }

  /** Stops the timers, checkpoints and closes every database, releases the directory. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.durability.stop();
        this.client.close();
        try {
          await this.server.close();
        } finally {
          await this.durability.closed();
        }
      } finally {
        this.lock.release();
      }
    })();
    return this.closing;
  }
}

/**
 * Opens (creating or recovering) the embedded database in `dir`.
 *
 * ```ts
 * const db = await open('./data');
 * await db.set('greeting', 'hello');
 * await db.get('greeting'); // 'hello'
 * await db.close();
 * ```
 */
export function open<E extends ValueEncoding = 'utf8', K extends KeyEncoding = 'utf8'>(
  dir: string,
  options: OpenOptions<E, K> = {},
): Promise<Database<ValueOf<E>, K>> {
  return Database.open(dir, options);
}
