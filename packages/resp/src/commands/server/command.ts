import type { ReplyWriter } from '@strata/protocol';
import { compileGlob } from '@strata/scan';
import { eqi } from '../../args.js';
import { CommandError, syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import {
  ACL_CATEGORIES,
  type AclCategory,
  type CommandDefinition,
  CommandFlag,
  type CommandSpec,
  type CommandTable,
  type KeySpec,
} from '../../server/command-table.js';
import { callKeyIndexes, commandHasKeys, keyFlagsAt } from '../shared/call-keys.js';
import { helpReply } from '../shared/help-reply.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { redisDocs, writeDocValue } from './redis-docs.js';

/** All commands, subcommands after their container, as COMMAND LIST names them. */
function* allSpecs(table: CommandTable): Generator<CommandSpec> {
  for (const spec of table) {
    yield spec;
    if (spec.subcommands !== null) yield* spec.subcommands;
  }
}

/** `get` or `client|setname`, in any case. */
function findSpec(table: CommandTable, name: string): CommandSpec | undefined {
  const [top, sub] = name.toLowerCase().split('|', 2);
  const spec = table.get(top ?? '');
  if (spec === undefined || sub === undefined) return spec;
  return spec.subcommands?.get(sub);
}

/** One COMMAND INFO entry, in Redis 7's shape (10 fields). */
export function writeCommandInfo(w: ReplyWriter, spec: CommandSpec): void {
  w.array(10);
  w.bulk(spec.fullName);
  w.integer(spec.arity);
  // Redis hides may_replicate on purpose (addReplyFlagsForCommand).
  const flags = spec.flagNames.filter((f) => f !== 'may_replicate');
  w.set(flags.length);
  for (const f of flags) w.simple(f);
  w.integer(spec.firstKey);
  w.integer(spec.lastKey);
  w.integer(spec.step);
  w.set(spec.acl.length);
  for (const a of spec.acl) w.simple(`@${a}`);
  const tips = spec.definition.tips ?? [];
  w.set(tips.length);
  for (const t of tips) w.bulk(t);
  writeKeySpecs(w, spec);
  if (spec.subcommands === null || spec.subcommands.size === 0) {
    w.set(0);
  } else {
    w.array(spec.subcommands.size);
    for (const s of spec.subcommands) writeCommandInfo(w, s);
  }
}

/** The key specs a first/last/step range stands for: index search, range find. */
function writeKeySpecs(w: ReplyWriter, spec: CommandSpec): void {
  const kw = spec.definition.keywordKeys;
  if (kw !== undefined) {
    w.set(1).map(3);
    w.bulk('flags').set(spec.keyFlags.length);
    for (const f of spec.keyFlags) w.simple(f);
    w.bulk('begin_search').map(2).bulk('type').bulk('keyword');
    w.bulk('spec').map(2).bulk('keyword').bulk(kw.keyword).bulk('startfrom').integer(kw.startFrom);
    w.bulk('find_keys').map(2).bulk('type').bulk('range');
    w.bulk('spec').map(3).bulk('lastkey').integer(-1).bulk('keystep').integer(1);
    w.bulk('limit').integer(2);
    return;
  }
  const specs = spec.definition.keySpecs;
  if (specs !== undefined) {
    w.set(specs.length);
    for (const k of specs) writeKeySpec(w, k);
    return;
  }
  if (spec.firstKey <= 0) {
    w.set(0);
    return;
  }
  const notes = spec.definition.keyNotes;
  w.set(1);
  w.map(notes === undefined ? 3 : 4);
  if (notes !== undefined) w.bulk('notes').bulk(notes);
  w.bulk('flags');
  w.set(spec.keyFlags.length);
  for (const f of spec.keyFlags) w.simple(f);
  w.bulk('begin_search');
  w.map(2).bulk('type').bulk('index');
  w.bulk('spec').map(1).bulk('index').integer(spec.firstKey);
  w.bulk('find_keys');
  w.map(2).bulk('type').bulk('range');
  w.bulk('spec').map(3);
  w.bulk('lastkey').integer(spec.lastKey < 0 ? spec.lastKey : spec.lastKey - spec.firstKey);
  w.bulk('keystep').integer(spec.step);
  w.bulk('limit').integer(0);
}

/** A key spec given as data (KeySpec), in Redis's shape; an unknown part has an empty spec. */
function writeKeySpec(w: ReplyWriter, k: KeySpec): void {
  w.map(k.notes === undefined ? 3 : 4);
  if (k.notes !== undefined) w.bulk('notes').bulk(k.notes);
  w.bulk('flags').set(k.flags.length);
  for (const f of k.flags) w.simple(f);
  w.bulk('begin_search');
  if (k.beginIndex === 'unknown') w.map(2).bulk('type').bulk('unknown').bulk('spec').map(0);
  else if (typeof k.beginIndex === 'object') {
    w.map(2).bulk('type').bulk('keyword').bulk('spec').map(2);
    w.bulk('keyword').bulk(k.beginIndex.keyword).bulk('startfrom').integer(k.beginIndex.startFrom);
  } else
    w.map(2).bulk('type').bulk('index').bulk('spec').map(1).bulk('index').integer(k.beginIndex);
  w.bulk('find_keys');
  const r = k.findRange;
  if (r === 'unknown') w.map(2).bulk('type').bulk('unknown').bulk('spec').map(0);
  else {
    w.map(2).bulk('type').bulk('range').bulk('spec').map(3);
    w.bulk('lastkey').integer(r.lastKey).bulk('keystep').integer(r.keyStep);
    w.bulk('limit').integer(r.limit);
  }
}

function writeCommandDocs(w: ReplyWriter, spec: CommandSpec): void {
  const d: CommandDefinition = spec.definition;
  const subs = spec.subcommands;
  const hasSubs = subs !== null && subs.size > 0;
  const recorded = redisDocs(spec.fullName);
  if (recorded === null) {
    // A command Redis 7.0 lacks: the definition's own text.
    w.map(hasSubs ? 5 : 4);
    w.bulk('summary').bulk(d.summary);
    w.bulk('since').bulk(d.since);
    w.bulk('group').bulk(d.group);
    w.bulk('complexity').bulk(d.complexity);
  } else {
    w.map(recorded.length + (hasSubs ? 1 : 0));
    for (const [name, value] of recorded) {
      w.bulk(name);
      writeDocValue(w, value);
    }
  }
  if (hasSubs) {
    w.bulk('subcommands').map(subs.size);
    for (const s of subs) {
      w.bulk(s.fullName);
      writeCommandDocs(w, s);
    }
  }
}

function info(c: Client, argv: Buffer[]): undefined {
  const table = c.server.table;
  const w = c.reply;
  if (argv.length <= 2) {
    w.array(table.size);
    for (const spec of table) writeCommandInfo(w, spec);
    return undefined;
  }
  w.array(argv.length - 2);
  for (let i = 2; i < argv.length; i++) {
    const spec = findSpec(table, argv[i]!.toString('latin1'));
    if (spec === undefined) w.null();
    else writeCommandInfo(w, spec);
  }
  return undefined;
}

function docs(c: Client, argv: Buffer[]): undefined {
  const table = c.server.table;
  const w = c.reply;
  const specs: CommandSpec[] = [];
  if (argv.length <= 2) specs.push(...table);
  else {
    for (let i = 2; i < argv.length; i++) {
      const spec = findSpec(table, argv[i]!.toString('latin1'));
      if (spec !== undefined) specs.push(spec);
    }
  }
  w.map(specs.length);
  for (const spec of specs) {
    w.bulk(spec.fullName);
    writeCommandDocs(w, spec);
  }
  return undefined;
}

function list(c: Client, argv: Buffer[]): undefined {
  let filter: (s: CommandSpec) => boolean = () => true;
  if (argv.length !== 2) {
    if (argv.length !== 5 || !eqi(argv[2]!, 'filterby')) throw syntaxError();
    const kind = argv[3]!;
    const value = argv[4]!;
    if (eqi(kind, 'module')) filter = () => false;
    else if (eqi(kind, 'aclcat')) {
      const cat = value.toString('latin1').toLowerCase() as AclCategory;
      if (!ACL_CATEGORIES.includes(cat)) {
        throw new CommandError('ERR_SYNTAX', 'ERR Unknown ACL category name');
      }
      filter = (s) => s.acl.includes(cat);
    } else if (eqi(kind, 'pattern')) {
      const glob = compileGlob(value, { nocase: true });
      filter = (s) => {
        const name = Buffer.from(s.fullName);
        return glob.match(name, 0, name.length);
      };
    } else throw syntaxError();
  }
  const names = [...allSpecs(c.server.table)].filter(filter).map((s) => s.fullName);
  c.reply.array(names.length);
  for (const n of names) c.reply.bulk(n);
  return undefined;
}

/**
 * Redis's getKeysSubcommandImpl, for COMMAND GETKEYS and GETKEYSANDFLAGS:
 * the keys of the command in `argv[2..]`, in its order of refusals; null
 * when a no_mandatory_keys command (EVAL) names none, which Redis answers
 * with an empty array.
 */
function callKeys(c: Client, argv: Buffer[]): { spec: CommandSpec; keys: number[] } {
  const args = argv.slice(2);
  let spec = c.server.table.lookup(args[0]!);
  if (spec !== undefined && spec.subcommands !== null && args.length >= 2) {
    spec = spec.subcommands.lookup(args[1]!);
  }
  if (spec === undefined) {
    throw new CommandError('ERR_SYNTAX', 'ERR Invalid command specified');
  }
  if (!commandHasKeys(spec)) {
    throw new CommandError('ERR_SYNTAX', 'ERR The command has no key arguments');
  }
  if (!spec.arityOk(args.length)) {
    throw new CommandError('ERR_SYNTAX', 'ERR Invalid number of arguments specified for command');
  }
  const keys = callKeyIndexes(spec, args);
  if (keys.length === 0 && !spec.has(CommandFlag.no_mandatory_keys)) {
    throw new CommandError('ERR_SYNTAX', 'ERR Invalid arguments specified for command');
  }
  return { spec, keys };
}

function getKeys(c: Client, argv: Buffer[]): undefined {
  const { keys } = callKeys(c, argv);
  c.reply.array(keys.length);
  for (const k of keys) c.reply.bulk(argv[k + 2]!);
  return undefined;
}

/** Each key with its key-spec flags (a set of status strings), as Redis 7's addReplyFlagsForKeyArgs. */
function getKeysAndFlags(c: Client, argv: Buffer[]): undefined {
  const { spec, keys } = callKeys(c, argv);
  const args = argv.slice(2);
  const w = c.reply;
  w.array(keys.length);
  for (const k of keys) {
    w.array(2).bulk(args[k]!);
    const flags = keyFlagsAt(spec, k, args);
    w.set(flags.length);
    for (const f of flags) w.simple(f);
  }
  return undefined;
}

const HELP = [
  'COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  '(no subcommand)',
  '    Return details about all Redis commands.',
  'COUNT',
  '    Return the total number of commands in this Redis server.',
  'LIST',
  '    Return a list of all commands in this Redis server.',
  'INFO [<command-name> ...]',
  '    Return details about multiple Redis commands.',
  '    If no command names are given, documentation details for all',
  '    commands are returned.',
  'DOCS [<command-name> ...]',
  '    Return documentation details about multiple Redis commands.',
  '    If no command names are given, documentation details for all',
  '    commands are returned.',
  'GETKEYS <full-command>',
  '    Return the keys from a full Redis command.',
  'GETKEYSANDFLAGS <full-command>',
  '    Return the keys and the access flags from a full Redis command.',
  'HELP',
  '    Prints this help.',
];

const meta = { group: 'server', ...NO_KEYS } as const;
const FLAGS = ['loading', 'stale'] as const;

export const commandCommand: CommandDefinition = {
  name: 'command',
  arity: -1,
  flags: FLAGS,
  acl: ['connection'],
  ...meta,
  since: '2.8.13',
  complexity: 'O(N) where N is the total number of Redis commands',
  summary: 'Returns detailed information about all commands.',
  handler: (c, argv) => info(c, [argv[0]!, argv[0]!]),
  subcommands: [
    {
      name: 'count',
      arity: 2,
      flags: FLAGS,
      acl: ['connection'],
      ...meta,
      since: '2.8.13',
      complexity: 'O(1)',
      summary: 'Returns a count of commands.',
      handler(c) {
        c.reply.integer(c.server.table.size);
        return undefined;
      },
    },
    {
      name: 'info',
      arity: -2,
      flags: FLAGS,
      acl: ['connection'],
      ...meta,
      since: '2.8.13',
      complexity: 'O(N) where N is the number of commands to look up',
      summary: 'Returns information about one, multiple or all commands.',
      handler: info,
    },
    {
      name: 'docs',
      arity: -2,
      flags: FLAGS,
      acl: ['connection'],
      ...meta,
      since: '7.0.0',
      complexity: 'O(N) where N is the number of commands to look up',
      summary: 'Returns documentary information about one, multiple or all commands.',
      handler: docs,
    },
    {
      name: 'list',
      arity: -2,
      flags: FLAGS,
      acl: ['connection'],
      ...meta,
      since: '7.0.0',
      complexity: 'O(N) where N is the total number of Redis commands',
      summary: 'Returns a list of command names.',
      handler: list,
    },
    {
      name: 'getkeys',
      // As Redis 7.0: the command and at least one argument.
      arity: -4,
      flags: FLAGS,
      acl: ['connection'],
      ...meta,
      since: '2.8.13',
      complexity: 'O(N) where N is the number of arguments to the command',
      summary: 'Extracts the key names from an arbitrary command.',
      handler: getKeys,
    },
    {
      name: 'getkeysandflags',
      arity: -4,
      flags: FLAGS,
      acl: ['connection'],
      ...meta,
      since: '7.0.0',
      complexity: 'O(N) where N is the number of arguments to the command',
      summary: 'Extracts the key names and access flags for an arbitrary command.',
      handler: getKeysAndFlags,
    },
    {
      name: 'help',
      arity: 2,
      flags: FLAGS,
      acl: ['connection'],
      ...meta,
      since: '5.0.0',
      complexity: 'O(1)',
      summary: 'Returns helpful text about the different subcommands.',
      handler: helpReply(HELP),
    },
  ],
};
