import { compileGlob } from '@strata/scan';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandHandler } from '../../server/command-table.js';
import { helpReply } from '../shared/help-reply.js';
import { ALL_KEYS, KEY1, NO_KEYS } from '../shared/key-positions.js';
import { activeNames, publish, publishShard } from './publish.js';
import {
  CHANNEL,
  PATTERN,
  pubsubServer,
  SHARD_CHANNEL,
  type Subscribers,
  type SubscriptionKind,
  subscribe,
  unsubscribe,
} from './subscriptions.js';

const pubsub = { acl: [], group: 'pubsub' } as const;
/** What the (P|S)(UN)SUBSCRIBE commands share: Redis's flags, allowed in the pub/sub context. */
const subscriptionCommand = {
  ...pubsub,
  flags: ['pubsub', 'noscript', 'loading', 'stale'],
  allowedWhileSubscribed: true,
} as const;
/** Shard channels are keys to a cluster (their slot), never to the store. */
const shardKeys = { keyFlags: ['not_key'] } as const;

const subscribing =
  (kind: SubscriptionKind): CommandHandler =>
  (c, argv) => {
    subscribe(c, kind, argv.slice(1));
    return undefined;
  };

const unsubscribing =
  (kind: SubscriptionKind): CommandHandler =>
  (c, argv) => {
    unsubscribe(c, kind, argv.slice(1));
    return undefined;
  };

/** PUBSUB CHANNELS / SHARDCHANNELS [pattern]: the names with a subscriber. */
function listActive(shard: boolean): CommandHandler {
  return (c, argv) => {
    const s = c.server.state(pubsubServer);
    const pattern = argv.length > 2 ? argv[2]! : null;
    const glob: Subscribers | null =
      pattern === null ? null : { name: pattern, clients: new Set(), glob: compileGlob(pattern) };
    const names = activeNames(shard ? s.shardChannels : s.channels, glob);
    c.reply.array(names.length);
    for (const n of names) c.reply.bulk(n);
    return undefined;
  };
}

/** PUBSUB NUMSUB / SHARDNUMSUB [channel ...]: name, count pairs, in the order asked (an array in RESP3 too). */
function countSubscribers(shard: boolean): CommandHandler {
  return (c, argv) => {
    const s = c.server.state(pubsubServer);
    const all = shard ? s.shardChannels : s.channels;
    c.reply.array((argv.length - 2) * 2);
    for (let i = 2; i < argv.length; i++) {
      const subs = all.get(argv[i]!.toString('latin1'));
      c.reply.bulk(argv[i]!).integer(subs === undefined ? 0 : subs.clients.size);
    }
    return undefined;
  };
}

const HELP = [
  'PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'CHANNELS [<pattern>]',
  "    Return the currently active channels matching a <pattern> (default: '*').",
  'NUMPAT',
  '    Return number of subscriptions to patterns.',
  'NUMSUB [<channel> ...]',
  '    Return the number of subscribers for the specified channels, excluding',
  '    pattern subscriptions(default: no channels).',
  'SHARDCHANNELS [<pattern>]',
  "    Return the currently active shard level channels matching a <pattern> (default: '*').",
  'SHARDNUMSUB [<shardchannel> ...]',
  '    Return the number of subscribers for the specified shard level channel(s)',
  'HELP',
  '    Prints this help.',
];

const pubsubSubcommand = {
  ...NO_KEYS,
  ...pubsub,
  flags: ['pubsub', 'loading', 'stale'],
  since: '2.8.0',
} as const;

function publishing(to: (c: Client, channel: Buffer, message: Buffer) => number): CommandHandler {
  return (c, argv) => {
    c.reply.integer(to(c, argv[1]!, argv[2]!));
    return undefined;
  };
}

export const pubsubCommands: CommandDefinition[] = [
  {
    name: 'subscribe',
    arity: -2,
    ...subscriptionCommand,
    ...NO_KEYS,
    since: '2.0.0',
    complexity: 'O(N) where N is the number of channels to subscribe to.',
    summary: 'Listens for messages published to channels.',
    handler: subscribing(CHANNEL),
  },
  {
    name: 'unsubscribe',
    arity: -1,
    ...subscriptionCommand,
    ...NO_KEYS,
    since: '2.0.0',
    complexity: 'O(N) where N is the number of channels to unsubscribe.',
    summary: 'Stops listening to messages posted to channels.',
    handler: unsubscribing(CHANNEL),
  },
  {
    name: 'psubscribe',
    arity: -2,
    ...subscriptionCommand,
    ...NO_KEYS,
    since: '2.0.0',
    complexity: 'O(N) where N is the number of patterns to subscribe to.',
    summary: 'Listens for messages published to channels that match one or more patterns.',
    handler: subscribing(PATTERN),
  },
  {
    name: 'punsubscribe',
    arity: -1,
    ...subscriptionCommand,
    ...NO_KEYS,
    since: '2.0.0',
    complexity: 'O(N) where N is the number of patterns to unsubscribe.',
    summary: 'Stops listening to messages published to channels that match one or more patterns.',
    handler: unsubscribing(PATTERN),
  },
  {
    name: 'ssubscribe',
    arity: -2,
    ...subscriptionCommand,
    ...ALL_KEYS,
    ...shardKeys,
    since: '7.0.0',
    complexity: 'O(N) where N is the number of shard channels to subscribe to.',
    summary: 'Listens for messages published to shard channels.',
    handler: subscribing(SHARD_CHANNEL),
  },
  {
    name: 'sunsubscribe',
    arity: -1,
    ...subscriptionCommand,
    ...ALL_KEYS,
    ...shardKeys,
    since: '7.0.0',
    complexity: 'O(N) where N is the number of shard channels to unsubscribe.',
    summary: 'Stops listening to messages posted to shard channels.',
    handler: unsubscribing(SHARD_CHANNEL),
  },
  {
    name: 'publish',
    arity: 3,
    flags: ['pubsub', 'loading', 'stale', 'fast'],
    ...pubsub,
    ...NO_KEYS,
    since: '2.0.0',
    complexity:
      'O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total number of subscribed patterns (by any client).',
    summary: 'Posts a message to a channel.',
    handler: publishing((c, ch, m) => publish(c.server, ch, m)),
  },
  {
    name: 'spublish',
    arity: 3,
    flags: ['pubsub', 'loading', 'stale', 'fast'],
    ...pubsub,
    ...KEY1,
    ...shardKeys,
    since: '7.0.0',
    complexity: 'O(N) where N is the number of clients subscribed to the receiving shard channel.',
    summary: 'Post a message to a shard channel',
    handler: publishing((c, ch, m) => publishShard(c.server, ch, m)),
  },
  {
    name: 'pubsub',
    arity: -2,
    flags: [],
    ...NO_KEYS,
    ...pubsub,
    since: '2.8.0',
    complexity: 'Depends on subcommand.',
    summary: 'A container for Pub/Sub commands.',
    subcommands: [
      {
        name: 'channels',
        arity: -2,
        ...pubsubSubcommand,
        complexity:
          'O(N) where N is the number of active channels, and assuming constant time pattern matching (relatively short channels and patterns)',
        summary: 'Returns the active channels.',
        handler: listActive(false),
      },
      {
        name: 'numpat',
        arity: 2,
        ...pubsubSubcommand,
        complexity: 'O(1)',
        summary: 'Returns a count of unique pattern subscriptions.',
        handler(c) {
          c.reply.integer(c.server.peekState(pubsubServer)?.patterns.size ?? 0);
          return undefined;
        },
      },
      {
        name: 'numsub',
        arity: -2,
        ...pubsubSubcommand,
        complexity: 'O(N) for the NUMSUB subcommand, where N is the number of requested channels',
        summary: 'Returns a count of subscribers to channels.',
        handler: countSubscribers(false),
      },
      {
        name: 'shardchannels',
        arity: -2,
        ...pubsubSubcommand,
        since: '7.0.0',
        complexity:
          'O(N) where N is the number of active shard channels, and assuming constant time pattern matching (relatively short shard channels).',
        summary: 'Returns the active shard channels.',
        handler: listActive(true),
      },
      {
        name: 'shardnumsub',
        arity: -2,
        ...pubsubSubcommand,
        since: '7.0.0',
        complexity:
          'O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels',
        summary: 'Returns the count of subscribers of shard channels.',
        handler: countSubscribers(true),
      },
      {
        name: 'help',
        arity: 2,
        ...NO_KEYS,
        ...pubsub,
        flags: ['loading', 'stale'],
        since: '6.2.0',
        complexity: 'O(1)',
        summary: 'Returns helpful text about the different subcommands.',
        handler: helpReply(HELP),
      },
    ],
  },
];
