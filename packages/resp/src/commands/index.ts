import type { CommandDefinition } from '../server/command-table.js';
import { CommandTable } from '../server/command-table.js';
import { aclFamily } from './acl/index.js';
import { bitsFamily } from './bits/index.js';
import { blockingFamily } from './blocking/index.js';
import { connectionFamily } from './connection/index.js';
import { debugFamily } from './debug/index.js';
import { dumpFamily } from './dump/index.js';
import type { CommandFamily } from './family.js';
import { geoFamily } from './geo/index.js';
import { hashesFamily } from './hashes/index.js';
import { hyperloglogFamily } from './hyperloglog/index.js';
import { keysFamily } from './keys/index.js';
import { listsFamily } from './lists/index.js';
import { memoryFamily } from './memory/index.js';
import { pubsubFamily } from './pubsub/index.js';
import { replicationFamily } from './replication/index.js';
import { scanFamily } from './scan/index.js';
import { type ScriptingFamilyOptions, scriptingFamily } from './scripting/index.js';
import { type ServerFamilyOptions, serverFamily } from './server/index.js';
import { setsFamily } from './sets/index.js';
import { sortFamily } from './sort/index.js';
import { streamsFamily } from './streams/index.js';
import { stringsFamily } from './strings/index.js';
import { trackingFamily } from './tracking/index.js';
import { transactionsFamily } from './transactions/index.js';
import { zsetsFamily } from './zsets/index.js';

export type CommandSetOptions = ServerFamilyOptions & ScriptingFamilyOptions;

/**
 * Every command family of the server, one line each: adding a family is a
 * folder under commands/ that exports a CommandFamily, and a line here.
 */
export function commandFamilies(options: CommandSetOptions = {}): CommandFamily[] {
  return [
    connectionFamily,
    serverFamily(options),
    stringsFamily,
    bitsFamily,
    hyperloglogFamily,
    keysFamily,
    hashesFamily,
    setsFamily,
    zsetsFamily,
    geoFamily,
    listsFamily,
    sortFamily,
    streamsFamily,
    blockingFamily,
    scanFamily,
    transactionsFamily,
    pubsubFamily,
    trackingFamily,
    memoryFamily,
    debugFamily,
    dumpFamily,
    replicationFamily,
    scriptingFamily(options),
    aclFamily,
  ];
}

/** Every command this server implements, family by family. */
export function commandDefinitions(options: CommandSetOptions = {}): CommandDefinition[] {
  return commandFamilies(options).flatMap((f) => f.commands);
}

/** The command table the server dispatches with. */
export function createCommandTable(options: CommandSetOptions = {}): CommandTable {
  return CommandTable.from(commandDefinitions(options));
}

export {
  type ConfiguredUser,
  checkUserDirective,
  USERS_AND_ACLFILE,
  type UserDirectiveCheck,
} from './acl/acl-config-users.js';
export type { User } from './acl/acl-user.js';
export { AclUsers } from './acl/acl-users.js';
export type { CommandFamily, FamilyHooks, LoggedForm } from './family.js';
export { formatNotifyFlags, parseNotifyFlags } from './pubsub/keyspace-events.js';
export { type FunctionStore, fileFunctionStore } from './scripting/index.js';
export type { AppParameter } from './server/app-parameter.js';
export type { ConfigRewriteHook } from './server/config-rewrite.js';
export { type ShutdownHook, type ShutdownMode, shutdownCommand } from './server/index.js';
