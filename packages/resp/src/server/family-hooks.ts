import type { Client } from './client.js';
import type { ServerState } from './server-state.js';

/** A replay form to log in a database (the command log's unit). */
export interface LoggedForm {
  readonly db: number;
  readonly argv: Buffer[];
}

/**
 * What the dispatcher calls at fixed points of a connection's life, for the
 * families that need it; it never knows which family answers.
 */
export interface FamilyHooks {
  /**
   * An EXEC ended: the family does what Redis defers to the end of a
   * transaction (serving clients blocked on keys it made ready) and returns
   * the replay forms that produced, logged after the EXEC.
   */
  readonly afterExec?: (client: Client) => readonly LoggedForm[];
  /**
   * RESET: the family drops what it keeps for the client (its
   * subscriptions...), as when the connection closes, silently.
   */
  readonly onClientReset?: (client: Client) => void;
  /**
   * A key of database `db` expired: the store's active expiry, a count, or
   * a lookup found its expiry passed (the pubsub family publishes `expired`).
   */
  readonly onKeyExpired?: (server: ServerState, db: number, key: Buffer) => void;
  /**
   * The value of a key of `db` is gone: deleted, replaced by a command, or
   * (null) every key of `db`, FLUSHDB. Called inside the command that did
   * it, before the command ends: what the key holds afterwards is for later.
   */
  readonly onKeyGone?: (server: ServerState, db: number, key: Uint8Array | null) => void;
  /** A connection closed (its socket is gone; its own state slots are dropped after this). */
  readonly onClientClose?: (client: Client) => void;
  /**
   * The server is about to accept connections (database 0 is open): the
   * family loads what it keeps outside the databases (the function
   * libraries). A rejection fails `listen`.
   */
  readonly beforeListen?: (server: ServerState) => Promise<void>;
  /** The server is closing: the family stops what it runs on its own (timers). */
  readonly onServerClose?: (server: ServerState) => void;
}
