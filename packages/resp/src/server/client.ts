import type { Socket } from 'node:net';
import type { RespVersion } from '@strata/protocol';
import { Dispatcher } from './dispatch.js';
import type { ServerState } from './server-state.js';
import { SlotValues, type StateSlot } from './state-slot.js';

export type { MultiState, QueuedCommand } from './dispatch.js';

/**
 * One client, as the command handlers see it: the connection (socket loop,
 * Connection), its commands' dispatch (Dispatcher), and what the client is
 * (id, name, protocol, library) with the state families keep for it.
 */
export class Client extends Dispatcher {
  readonly id: number;
  readonly createdAt = Date.now();
  name: Buffer | null = null;
  libName = '';
  libVer = '';
  noEvict = false;
  /**
   * CLIENT NO-TOUCH (Redis 7.2): its commands leave the keys' access clock
   * (OBJECT IDLETIME/FREQ) alone, but TOUCH; CLIENT LIST flag `T`.
   */
  noTouch = false;
  /** The families' per-client state (ClientSlot), dropped at close. */
  private readonly slots = new SlotValues<Client>(this);

  /**
   * `replay`: a client with no connection (RespServer.execute, AOF
   * replay): its writes are not logged again.
   */
  constructor(server: ServerState, socket: Socket, replay = false) {
    super(server, socket, replay);
    this.id = replay ? 0 : server.newClientId();
  }

  protected get client(): Client {
    return this;
  }

  get protocol(): RespVersion {
    return this.reply.protocol;
  }

  set protocol(p: RespVersion) {
    this.reply.protocol = p;
  }

  /** A family's state for this client, created on first use. */
  state<S>(slot: StateSlot<S, Client>): S {
    return this.slots.get(slot);
  }

  /** A family's state for this client, or undefined when it has none. */
  peekState<S>(slot: StateSlot<S, Client>): S | undefined {
    return this.slots.peek(slot);
  }

  /** Called once the socket is gone. */
  onClose(): void {
    this.closed = true;
    this.unwatchAll();
    this.multi = null;
    for (const onClientClose of this.server.hooks.onClientClose) onClientClose(this);
    this.slots.clear();
    // An EXEC still running keeps the gate until its last command ends: its
    // writes stay atomic even when the client is gone.
  }
}
