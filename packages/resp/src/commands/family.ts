import type { Client } from '../server/client.js';
import type { CommandDefinition } from '../server/command-table.js';
import type { FamilyHooks } from '../server/family-hooks.js';
import type { ServerState } from '../server/server-state.js';
import { StateSlot } from '../server/state-slot.js';

export type { FamilyHooks, LoggedForm } from '../server/family-hooks.js';

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
