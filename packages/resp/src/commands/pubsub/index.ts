import type { CommandFamily } from '../family.js';
import { NotifyClass, notifyKeyspaceEvent } from './keyspace-events.js';
import { pubsubCommands } from './pubsub.js';
import { unsubscribeAll } from './subscriptions.js';

/**
 * Pub/Sub: channels, patterns and shard channels (SUBSCRIBE, PUBLISH,
 * PUBSUB...). Messages are pushes into the subscribers' output
 * (Connection.pushWriter); RESET and a closing connection drop the
 * client's subscriptions.
 */
export const pubsubFamily: CommandFamily = {
  name: 'pubsub',
  commands: pubsubCommands,
  hooks: {
    onClientReset: unsubscribeAll,
    onClientClose: unsubscribeAll,
    // A key the store found expired, with no client behind it (`expired`, class x).
    onKeyExpired: (server, db, key) =>
      notifyKeyspaceEvent(server, NotifyClass.expired, 'expired', key, db),
  },
};
