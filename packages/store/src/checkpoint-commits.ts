import type { CommandLog } from '@strata/resp';
import type { Durability, SyncPolicy } from './durability.js';
import type { TransactionFence } from './transaction-fence.js';

/** One group of waiters for the next durable step of a kind. */
interface Group {
  promise: Promise<void>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** The two durable steps: the log synced (commitLog), or a whole checkpoint. */
type Kind = 'log' | 'checkpoint';

function group(): Group {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * The embedded database's command log without the append-only file
 * (append-only-mode.ts has the other): the stores' own log is it. A write is durable once the log holding it is
 * synced (`commitLog`: the tail page sealed, flushed and synced, no index
 * snapshot, then its point recorded; recovery replays the log after the
 * last checkpoint up to that point), or once a checkpoint holds it. With `always` each write's reply waits for a log
 * commit that began after it (group commit: the writes of one turn, and
 * those that came while a commit ran, share the next one); with `everysec`
 * a log commit runs each second after a write; with `no` only the periodic
 * checkpoints and close's. The periodic checkpoints (`start(everyMs)`)
 * bound the log a crash replays.
 */
export class CheckpointCommits implements CommandLog, Durability {
  /** The step the writes so far wait for (not started yet), by kind. */
  private readonly next: Record<Kind, Group | null> = { log: null, checkpoint: null };
  private running: Promise<void> | null = null;
  /** Writes since the last log commit began. */
  private dirty = false;
  /** Writes since the last checkpoint began. */
  private unsaved = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(
    private readonly policy: SyncPolicy,
    /** Checkpoints every open database. */
    private readonly saveAll: () => Promise<void>,
    /** Syncs the log of every open database (their commitLog). */
    private readonly commitLog: () => Promise<void>,
    private readonly fence: TransactionFence,
  ) {}

  append(_db: number, argv: readonly Buffer[]): Promise<void> | undefined {
    this.fence.observe(argv);
    this.dirty = true;
    this.unsaved = true;
    return this.policy === 'always' ? this.commit('log') : undefined;
  }

  /** A checkpoint that begins after this call (Database.checkpoint); resolves once it is on disk. */
  checkpoint(): Promise<void> {
    return this.commit('checkpoint');
  }

  /** After the databases closed: nothing (the stores' log is the only log). */
  closed(): Promise<void> {
    return Promise.resolve();
  }

  /** A step of `kind` that begins after this call; resolves once it is on disk. */
  commit(kind: Kind = 'checkpoint'): Promise<void> {
    let g = this.next[kind];
    if (g === null) {
      g = group();
      this.next[kind] = g;
      // The other writes of this turn join it.
      if (this.running === null) setImmediate(() => this.pump());
    }
    return g.promise;
  }

  private pump(): void {
    if (this.running !== null) return;
    // A checkpoint holds what a log commit would: it serves both groups.
    const checkpoint = this.next.checkpoint;
    const log = this.next.log;
    if (checkpoint === null && log === null) return;
    this.next.log = null;
    this.dirty = false;
    let step: Promise<void>;
    if (checkpoint !== null) {
      this.next.checkpoint = null;
      this.unsaved = false;
      step = this.saveAll();
    } else {
      step = this.commitLog();
    }
    const done = [checkpoint, log].filter((g): g is Group => g !== null);
    this.running = step.then(
      () => {
        for (const g of done) g.resolve();
      },
      (e) => {
        for (const g of done) g.reject(e);
      },
    );
    void this.running.then(() => {
      this.running = null;
      this.pump();
    });
  }

  /**
   * Starts the timers: `everysec`'s log commit after writes, and a
   * checkpoint every `everyMs` when something was written (0: none).
   */
  start(everyMs: number): void {
    const tick = (ms: number, kind: Kind) => {
      const t = setInterval(() => {
        const pending = kind === 'log' ? this.dirty : this.unsaved;
        if (pending && !this.stopped) this.commit(kind).catch(() => undefined);
      }, ms);
      t.unref();
      this.timers.push(t);
    };
    if (this.policy === 'everysec') tick(1000, 'log');
    if (everyMs > 0) tick(everyMs, 'checkpoint');
  }

  /** Stops the timers and waits for the steps asked for so far. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    await this.next.log?.promise.catch(() => undefined);
    await this.next.checkpoint?.promise.catch(() => undefined);
    await this.running;
  }
}
