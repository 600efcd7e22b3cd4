import { List } from '@strata/collections';
import { CommandError, cacheContendedError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { changeSignalled, NotifyClass, notify } from '../pubsub/keyspace-events.js';
import { whenWritten } from '../shared/collection-access.js';
import { genericGroup } from '../shared/command-groups.js';
import { KEY1 } from '../shared/key-positions.js';
import { NONE } from '../shared/replay-rules.js';
import { SORT_KEY_SPECS, SORT_RO_KEY_SPECS, sortChangedKeys, sortKeys } from './sort-keys.js';
import { PENDING, SortLookups } from './sort-lookups.js';
import { parseSort, type SortRequest } from './sort-options.js';
import { computeSort, type SortOutcome } from './sort-run.js';

const notDoubleError = () =>
  new CommandError('ERR_NOT_FLOAT', "ERR One or more scores can't be converted into double");

/**
 * Gated rounds before giving up: the sorted key, the weights, the GETs
 * (a set or sorted set found after a list lookup adds one). Past them the
 * keys kept changing type under the command, which the gate rules out.
 */
const MAX_ROUNDS = 8;

function sortGeneric(c: Client, argv: Buffer[], readonly: boolean): CommandResult {
  const req = parseSort(argv, readonly);
  const askExisted =
    req.store !== null && changeSignalled(c, NotifyClass.new | NotifyClass.generic);
  const env = new SortLookups(c, false);
  const r = computeSort(c, req, env, askExisted);
  if (r !== PENDING) return commit(c, req, env, r);
  env.abandon();
  // A key on the disk: the whole command runs again with every other client
  // held, so what it reads and writes is one step (as EXEC and RENAME do).
  // An EXEC or a script holds the gate already.
  const run = () => gated(c, req, askExisted);
  if (c.inScript || c.server.exclusive === c) return run();
  return c.server.runExclusive(c, run);
}

async function gated(c: Client, req: SortRequest, askExisted: boolean): Promise<void> {
  const env = new SortLookups(c, true);
  for (let round = 0; ; round++) {
    env.startRound();
    const r = computeSort(c, req, env, askExisted);
    if (r !== PENDING) return commit(c, req, env, r);
    if (round >= MAX_ROUNDS) throw cacheContendedError();
    await env.settle();
  }
}

/** Publishes the lookups' misses, then replies or stores, in Redis's order. */
function commit(c: Client, req: SortRequest, env: SortLookups, r: SortOutcome): CommandResult {
  env.publishMisses();
  if (r.kind === 'notDouble') throw notDoubleError();
  const w = c.reply;
  const dst = req.store;
  if (dst === null) {
    w.array(r.items.length);
    for (const v of r.items) {
      if (v === null) w.null();
      else w.bulkLatin1(v);
    }
    return undefined;
  }
  const n = r.items.length;
  const reply = () => w.integer(n);
  if (n === 0) {
    // Redis deletes the destination whatever it held; `del` only when there was one.
    const written = c.collections.delete(dst);
    if (r.existed !== false) notify(c, NotifyClass.generic, 'del', dst);
    return whenWritten(written, reply);
  }
  const list = new List();
  for (const v of r.items) list.pushBack(v ?? '');
  // Over whatever the key held, its expiry gone (Redis's setKey).
  const written = c.collections.create(dst, list);
  if (r.existed === false) notify(c, NotifyClass.new, 'new', dst);
  notify(c, NotifyClass.list, 'sortstore', dst);
  return whenWritten(written, reply);
}

const COMPLEXITY =
  'O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N).';

export const sortCommand: CommandDefinition = {
  name: 'sort',
  arity: -2,
  flags: ['write', 'denyoom', 'movablekeys'],
  ...KEY1,
  ...genericGroup,
  acl: ['set', 'sortedset', 'list', 'dangerous'],
  keysOf: sortKeys,
  changedKeysOf: sortChangedKeys,
  keySpecs: SORT_KEY_SPECS,
  since: '1.0.0',
  complexity: COMPLEXITY,
  summary: 'Sort the elements in a list, set or sorted set',
  handler: (c, argv) => sortGeneric(c, argv, false),
  // Logged as it came when it stored (it reads the same keys on replay); a plain SORT wrote nothing.
  replay: (argv) => (sortKeys(argv).length > 1 ? [argv as Buffer[]] : NONE),
};

export const sortRoCommand: CommandDefinition = {
  name: 'sort_ro',
  arity: -2,
  flags: ['readonly', 'movablekeys'],
  ...KEY1,
  ...genericGroup,
  acl: ['set', 'sortedset', 'list', 'dangerous'],
  keySpecs: SORT_RO_KEY_SPECS,
  since: '7.0.0',
  complexity: COMPLEXITY,
  summary: 'Sort the elements in a list, set or sorted set. Read-only variant of SORT.',
  handler: (c, argv) => sortGeneric(c, argv, true),
};
