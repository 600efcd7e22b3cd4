import {
  latin1,
  MIN_STREAM_ID,
  StreamGroup,
  type StreamId,
  StreamValue,
} from '@strata/collections';
import { eqi, parseInteger } from '../../args.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { NotifyClass, notify } from '../pubsub/keyspace-events.js';
import { whenWritten } from '../shared/collection-access.js';
import { createStream, streamChanged, withStream } from './stream-access.js';
import { parseId, RANGE_START, STRICT } from './stream-args.js';
import {
  busyGroupError,
  noSuchGroupError,
  streamError,
  subcommandSyntaxError,
} from './stream-errors.js';
import { signalStream } from './stream-waiters.js';

/** XGROUP CREATE / SETID / DESTROY / CREATECONSUMER / DELCONSUMER (Redis 7.0's xgroupCommand). */

const keyRequiredError = () =>
  streamError(
    'The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.',
  );

/** ENTRIESREAD's value: >= 0, or -1 (unknown). */
function parseEntriesRead(arg: Uint8Array): number {
  const n = parseInteger(arg);
  if (n < 0 && n !== -1) throw streamError('value for ENTRIESREAD must be positive or -1');
  return n;
}

/** The options after the ID of CREATE (MKSTREAM, ENTRIESREAD) or SETID (ENTRIESREAD). */
function parseGroupOptions(
  argv: Buffer[],
  create: boolean,
): { mkStream: boolean; entriesRead: number } {
  let mkStream = false;
  let entriesRead = -1;
  for (let i = 5; i < argv.length; ) {
    if (create && eqi(argv[i]!, 'mkstream')) {
      mkStream = true;
      i++;
    } else if (eqi(argv[i]!, 'entriesread') && i + 1 < argv.length) {
      entriesRead = parseEntriesRead(argv[i + 1]!);
      i += 2;
    } else throw subcommandSyntaxError(argv[1]!, 'XGROUP');
  }
  return { mkStream, entriesRead };
}

/** The group's start: `$` (the stream's last ID) or an ID. */
function groupId(arg: Buffer, s: StreamValue | null, strict: boolean): StreamId {
  if (arg.length === 1 && arg[0] === 0x24) return s === null ? MIN_STREAM_ID : s.lastId;
  return parseId(arg, strict ? STRICT : RANGE_START);
}

export function xgroupCreate(c: Client, argv: Buffer[]): CommandResult {
  const { mkStream, entriesRead } = parseGroupOptions(argv, true);
  if (argv.length > 8) throw subcommandSyntaxError(argv[1]!, 'XGROUP');
  const key = argv[2]!;
  return withStream(c, key, (found) => {
    if (found === null && !mkStream) throw keyRequiredError();
    const id = groupId(argv[4]!, found, true);
    const name = latin1(argv[3]!);
    if (found?.groups.has(name)) throw busyGroupError();
    const s = found ?? new StreamValue();
    s.groups.set(name, new StreamGroup(name, id, entriesRead));
    const written = found === null ? createStream(c, key, s) : streamChanged(c, key, s);
    return whenWritten(written, () => {
      c.reply.simple('OK');
      if (found === null) notify(c, NotifyClass.new, 'new', key);
      notify(c, NotifyClass.stream, 'xgroup-create', key);
    });
  });
}

/** The stream and group a subcommand needs, or Redis's error. */
function withGroup(
  c: Client,
  argv: Buffer[],
  f: (s: StreamValue, g: StreamGroup | undefined) => CommandResult,
  needsGroup: boolean,
): CommandResult {
  const key = argv[2]!;
  return withStream(c, key, (s) => {
    if (s === null) throw keyRequiredError();
    const g = s.groups.get(latin1(argv[3]!));
    if (g === undefined && needsGroup) throw noSuchGroupError(key, argv[3]!);
    return f(s, g);
  });
}

export function xgroupSetId(c: Client, argv: Buffer[]): CommandResult {
  const { entriesRead } = parseGroupOptions(argv, false);
  if (argv.length !== 5 && argv.length !== 7) throw subcommandSyntaxError(argv[1]!, 'XGROUP');
  const key = argv[2]!;
  return withGroup(
    c,
    argv,
    (s, g) => {
      g!.lastId = groupId(argv[4]!, s, false);
      g!.entriesRead = entriesRead;
      streamChanged(c, key, s);
      c.reply.simple('OK');
      notify(c, NotifyClass.stream, 'xgroup-setid', key);
      // A client blocked on the group reads from its new ID on the next XADD.
      return undefined;
    },
    true,
  );
}

export function xgroupDestroy(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[2]!;
  return withGroup(
    c,
    argv,
    (s, g) => {
      if (g === undefined) {
        c.reply.integer(0);
        c.propagate();
        return undefined;
      }
      s.groups.delete(g.name);
      streamChanged(c, key, s);
      c.reply.integer(1);
      notify(c, NotifyClass.stream, 'xgroup-destroy', key);
      // Its blocked XREADGROUP clients get NOGROUP.
      signalStream(c, key, argv);
      return undefined;
    },
    false,
  );
}

export function xgroupCreateConsumer(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[2]!;
  return withGroup(
    c,
    argv,
    (s, g) => {
      const name = latin1(argv[4]!);
      const created = g!.consumer(name, Date.now(), false) === undefined;
      if (created) {
        g!.consumer(name, Date.now(), true);
        streamChanged(c, key, s);
      } else c.propagate();
      c.reply.integer(created ? 1 : 0);
      if (created) notify(c, NotifyClass.stream, 'xgroup-createconsumer', key);
      return undefined;
    },
    true,
  );
}

export function xgroupDelConsumer(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[2]!;
  return withGroup(
    c,
    argv,
    (s, g) => {
      const pending = g!.deleteConsumer(latin1(argv[4]!));
      if (pending === -1) {
        c.reply.integer(0);
        c.propagate();
        return undefined;
      }
      streamChanged(c, key, s);
      c.reply.integer(pending);
      notify(c, NotifyClass.stream, 'xgroup-delconsumer', key);
      return undefined;
    },
    true,
  );
}

export const XGROUP_HELP = [
  'XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'CREATE <key> <groupname> <id|$> [option]',
  '    Create a new consumer group. Options are:',
  '    * MKSTREAM',
  '      Create the empty stream if it does not exist.',
  '    * ENTRIESREAD entries_read',
  "      Set the group's entries_read counter (internal use).",
  'CREATECONSUMER <key> <groupname> <consumer>',
  '    Create a new consumer in the specified group.',
  'DELCONSUMER <key> <groupname> <consumer>',
  '    Remove the specified consumer.',
  'DESTROY <key> <groupname>',
  '    Remove the specified group.',
  'SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]',
  '    Set the current group ID and entries_read counter.',
  'HELP',
  '    Prints this help.',
];
