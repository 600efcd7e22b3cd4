import type { Client } from '../server/client.js';
import type { CommandDefinition } from '../server/command-table.js';
import type { ServerState } from '../server/server-state.js';
import { StateSlot } from '../server/state-slot.js';

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
  /** A connection closed (its socket is gone; its own state slots are dropped after this). */
  readonly onClientClose?: (client: Client) => void;
}

/**
 * A command family: its commands, as data, and the hooks it gives the
 * dispatcher. Each folder under `commands/` exports one; `commands/index.ts`
 * lists them.
 */
export interface CommandFamily {
  /** The folder's name (`strings`, `blocking`...). */
  readonly name: string;
  readonly commands: readonly CommandDefinition[];
  readonly hooks?: FamilyHooks;
}

/** State a family keeps per server, created by the server state on first use. */
export type ServerSlot<S> = StateSlot<S, ServerState>;
/** State a family keeps per connection, dropped when it closes. */
export type ClientSlot<S> = StateSlot<S, Client>;

export function serverSlot<S>(name: string, create: (server: ServerState) => S): ServerSlot<S> {
  return new StateSlot(name, create);
}

export function clientSlot<S>(name: string, create: (client: Client) => S): ClientSlot<S> {
  return new StateSlot(name, create);
}
