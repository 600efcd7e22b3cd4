/**
 * When a write is durable: `always`, before it is acknowledged; `everysec`,
 * within about a second; `no`, at the periodic checkpoints and close. With
 * the append-only file on these are its fsync policies (Redis's
 * appendfsync), of the same names.
 */
export type SyncPolicy = 'always' | 'everysec' | 'no';

/**
 * How an open database takes checkpoints and stops (Database.checkpoint,
 * close): its log's commits (checkpoint-commits.ts), or the append-only
 * file as strata-server runs it (append-only-mode.ts).
 */
export interface Durability {
  /** A checkpoint of every open database that changed; resolves once on disk. */
  checkpoint(): Promise<void>;
  /** Stops the timers and waits for what they started. */
  stop(): Promise<void>;
  /** After the databases closed (each checkpointed): the AOF synced and closed, if there is one. */
  closed(): Promise<void>;
}
