import { randomBytes } from 'node:crypto';
import { eqi, integerOrNaN } from '../../args.js';
import { CommandError, cString, notIntegerError, wrongArityError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type {
  CommandDefinition,
  CommandFlagName,
  CommandHandler,
  CommandSpec,
} from '../../server/command-table.js';
import { ACL_CATEGORIES } from '../../server/command-table.js';
import { subcommandSyntaxError } from '../server/subcommand-syntax-error.js';
import { helpReply } from '../shared/help-reply.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { checkCommand } from './acl-check.js';
import { aclFileName, disconnectUser, loadAclFile, saveAclFile } from './acl-file.js';
import { hasSpaces, inCategory, isCategory, type Selector } from './acl-selector.js';
import { mergeSelectorArgs, ruleErrorText, type User } from './acl-user.js';

const ADMIN: CommandFlagName[] = ['admin', 'noscript', 'loading', 'stale'];
const OPEN: CommandFlagName[] = ['noscript', 'loading', 'stale'];
const meta = { ...NO_KEYS, acl: [], group: 'server', since: '6.0.0', complexity: 'O(1)' } as const;

const aclError = (message: string, latin1 = false) =>
  new CommandError('ERR_ACL', `ERR ${message}`, latin1);

const HELP = [
  'ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'CAT [<category>]',
  '    List all commands that belong to <category>, or all command categories',
  '    when no category is specified.',
  'DELUSER <username> [<username> ...]',
  '    Delete a list of users.',
  'DRYRUN <username> <command> [<arg> ...]',
  '    Returns whether the user can execute the given command without executing the command.',
  'GETUSER <username>',
  "    Get the user's details.",
  'GENPASS [<bits>]',
  '    Generate a secure 256-bit user password. The optional `bits` argument can',
  '    be used to specify a different size.',
  'LIST',
  '    Show users details in config file format.',
  'LOAD',
  '    Reload users from the ACL file.',
  'LOG [<count> | RESET]',
  '    Show the ACL log entries.',
  'SAVE',
  '    Save the current config to the ACL file.',
  'SETUSER <username> <attribute> [<attribute> ...]',
  '    Create or modify a user with the specified attributes.',
  'USERS',
  '    List all the registered usernames.',
  'WHOAMI',
  '    Return the current connection username.',
  'HELP',
  '    Prints this help.',
];

const NO_ACL_FILE =
  'This Redis instance is not configured to use an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration file set) in order to store users in the Redis configuration.';

function setuser(c: Client, argv: Buffer[]): undefined {
  // Nothing of a user's rules (passwords) shows in SLOWLOG or MONITOR.
  for (let j = 2; j < argv.length; j++) c.redact(j);
  const name = argv[2]!.toString('latin1');
  if (hasSpaces(name)) throw aclError("Usernames can't contain spaces or null characters");
  const args = argv.slice(3).map((a) => a.toString('latin1'));
  const merged = mergeSelectorArgs(args);
  if (!Array.isArray(merged)) {
    throw aclError(
      `Unmatched parenthesis in acl selector starting at '${args[merged.unmatched]}'.`,
      true,
    );
  }
  const users = c.server.users;
  const existing = users.get(name);
  // Staged on a copy: every rule applies, or none does.
  const staged = existing?.copy() ?? users.create(name);
  for (const op of merged) {
    const e = staged.apply(op);
    if (e !== null) {
      throw aclError(`Error in ACL SETUSER modifier '${op}': ${ruleErrorText(e)}`, true);
    }
  }
  if (existing !== undefined) existing.copyFrom(staged);
  else users.users.set(name, staged);
  c.reply.simple('OK');
  return undefined;
}

function deluser(c: Client, argv: Buffer[]): undefined {
  for (let j = 2; j < argv.length; j++) {
    if (argv[j]!.toString('latin1') === 'default') {
      throw aclError("The 'default' user cannot be removed");
    }
  }
  const users = c.server.users;
  let deleted = 0;
  for (let j = 2; j < argv.length; j++) {
    const name = argv[j]!.toString('latin1');
    const u = users.users.get(name);
    if (u === undefined) continue;
    users.users.delete(name);
    disconnectUser(c.server, u, c);
    deleted++;
  }
  c.reply.integer(deleted);
  return undefined;
}

/** aclAddReplySelectorDescription: commands, keys, channels. */
function writeSelector(c: Client, s: Selector): void {
  c.reply.bulk('commands').bulk(s.describeCommands());
  c.reply.bulk('keys').bulk(s.keysText());
  c.reply.bulk('channels').bulk(s.channelsText());
}

function getuser(c: Client, argv: Buffer[]): undefined {
  const u = c.server.users.get(argv[2]!);
  const w = c.reply;
  if (u === undefined) {
    w.null();
    return undefined;
  }
  w.map(6);
  const flags = u.flagNames();
  w.bulk('flags').set(flags.length);
  for (const f of flags) w.bulk(f);
  w.bulk('passwords').array(u.passwords.length);
  for (const p of u.passwords) w.bulk(p.hex);
  writeSelector(c, u.root);
  w.bulk('selectors').array(u.selectors.length - 1);
  for (const s of u.selectors.slice(1)) {
    w.map(3);
    writeSelector(c, s);
  }
  return undefined;
}

function list(c: Client, names: boolean): undefined {
  const users = c.server.users.sorted();
  c.reply.array(users.length);
  for (const u of users) {
    const name = Buffer.from(u.name, 'latin1');
    c.reply.bulk(names ? name : Buffer.from(`user ${u.name} ${u.describe()}`, 'latin1'));
  }
  return undefined;
}

/** aclCatWithFlags: a container when it is in the category, then its subcommands that are. */
function cat(c: Client, argv: Buffer[]): undefined {
  if (argv.length > 3) throw subcommandSyntaxError(argv);
  const w = c.reply;
  if (argv.length === 2) {
    w.array(ACL_CATEGORIES.length);
    for (const name of ACL_CATEGORIES) w.bulk(name);
    return undefined;
  }
  const category = argv[2]!.toString('latin1').toLowerCase();
  if (!isCategory(category)) {
    throw aclError(`Unknown category '${cString(argv[2]!, 128)}'`, true);
  }
  const names: string[] = [];
  for (const spec of c.server.table) {
    if (inCategory(spec, category)) names.push(spec.fullName);
    if (spec.subcommands === null) continue;
    for (const sub of spec.subcommands) if (inCategory(sub, category)) names.push(sub.fullName);
  }
  w.array(names.length);
  for (const n of names) w.bulk(n);
  return undefined;
}

const GENPASS_MAX_BITS = 4096;

function genpass(c: Client, argv: Buffer[]): undefined {
  if (argv.length > 3) throw subcommandSyntaxError(argv);
  let bits = 256;
  if (argv.length === 3) {
    bits = integerOrNaN(argv[2]!);
    if (Number.isNaN(bits)) throw notIntegerError();
  }
  if (bits <= 0 || bits > GENPASS_MAX_BITS) {
    throw aclError(
      `ACL GENPASS argument must be the number of bits for the output password, a positive number up to ${GENPASS_MAX_BITS}`,
    );
  }
  const chars = Math.floor((bits + 3) / 4);
  c.reply.bulk(
    randomBytes(Math.ceil(chars / 2))
      .toString('hex')
      .slice(0, chars),
  );
  return undefined;
}

function log(c: Client, argv: Buffer[]): undefined {
  if (argv.length > 3) throw subcommandSyntaxError(argv);
  const acl = c.server.users.log;
  let count = 10;
  if (argv.length === 3) {
    if (eqi(argv[2]!, 'reset')) {
      acl.reset();
      c.reply.simple('OK');
      return undefined;
    }
    count = integerOrNaN(argv[2]!);
    if (Number.isNaN(count)) throw notIntegerError();
    if (count < 0) count = 0;
  }
  const entries = acl.entries.slice(0, count);
  const w = c.reply;
  const now = Date.now();
  w.array(entries.length);
  for (const e of entries) {
    w.map(7);
    w.bulk('count').integer(e.count);
    w.bulk('reason').bulk(e.reason);
    w.bulk('context').bulk(e.context);
    w.bulk('object').bulk(e.object);
    w.bulk('username').bulk(e.username);
    w.bulk('age-seconds').double((now - e.time) / 1000);
    w.bulk('client-info').bulk(e.clientInfo);
  }
  return undefined;
}

/** lookupCommand over `argv`: a container's subcommand when one is named, else undefined. */
function lookupCall(c: Client, argv: Buffer[]): CommandSpec | undefined {
  const spec = c.server.table.lookup(argv[0]!);
  if (spec === undefined || spec.subcommands === null || argv.length === 1) return spec;
  return spec.subcommands.lookup(argv[1]!);
}

function dryrun(c: Client, argv: Buffer[]): undefined {
  const u = c.server.users.get(argv[2]!);
  if (u === undefined) throw aclError(`User '${argv[2]!.toString('latin1')}' not found`, true);
  const call = argv.slice(3);
  const spec = lookupCall(c, call);
  if (spec === undefined) {
    throw aclError(`Command '${argv[3]!.toString('latin1')}' not found`, true);
  }
  if (!spec.arityOk(call.length)) throw wrongArityError(spec.fullName);
  const denied = checkCommand(u, spec, call);
  if (denied === null) {
    c.reply.simple('OK');
    return undefined;
  }
  const what =
    denied.reason === 'command'
      ? `run the '${spec.fullName}' command`
      : `access the '${call[denied.index]!.toString('latin1')}' ${denied.reason}`;
  c.reply.bulk(Buffer.from(`This user has no permissions to ${what}`, 'latin1'));
  return undefined;
}

/** ACL LOAD and SAVE: only with an aclfile, checked before anything else as Redis does. */
function withAclFile(run: (c: Client, file: string) => void): CommandHandler {
  return (c) => {
    const file = aclFileName(c.server);
    if (file === '') throw aclError(NO_ACL_FILE);
    run(c, file);
    return undefined;
  };
}

const sub = (
  name: string,
  arity: number,
  flags: CommandFlagName[],
  summary: string,
  handler: CommandHandler,
  extra: Partial<CommandDefinition> = {},
): CommandDefinition => ({ name, arity, flags, ...meta, summary, handler, ...extra });

/** The user named `name` as ACL WHOAMI prints it. */
function userName(u: User): Buffer {
  return Buffer.from(u.name, 'latin1');
}

/**
 * ACL and its subcommands, Redis 7.0's (acl.c aclCommand), in the order
 * COMMAND INFO lists them there.
 */
export const aclCommand: CommandDefinition = {
  name: 'acl',
  arity: -2,
  flags: [],
  ...meta,
  complexity: 'Depends on subcommand.',
  summary: 'A container for Access List Control commands ',
  subcommands: [
    sub(
      'dryrun',
      -4,
      ADMIN,
      'Returns whether the user can execute the given command without executing the command.',
      dryrun,
      { since: '7.0.0' },
    ),
    sub('list', 2, ADMIN, 'Lists the ACL rules in ACL config file format.', (c) => list(c, false)),
    sub(
      'save',
      2,
      ADMIN,
      'Saves the effective ACL rules in the configured ACL file.',
      withAclFile((c, file) => {
        if (!saveAclFile(c.server, file)) {
          throw aclError(
            'There was an error trying to save the ACLs. Please check the server logs for more information',
          );
        }
        c.reply.simple('OK');
      }),
    ),
    sub('users', 2, ADMIN, 'Lists all ACL users.', (c) => list(c, true)),
    sub('cat', -2, OPEN, 'Lists the ACL categories, or the commands inside a category.', cat),
    sub('deluser', -3, ADMIN, 'Deletes ACL users, and terminates their connections.', deluser),
    sub('getuser', 3, ADMIN, 'Lists the ACL rules of a user.', getuser),
    sub('setuser', -3, ADMIN, 'Creates and modifies an ACL user and its rules.', setuser),
    sub('log', -2, ADMIN, 'Lists recent security events generated due to ACL rules.', log),
    sub('whoami', 2, OPEN, 'Returns the authenticated username of the current connection.', (c) => {
      c.reply.bulk(userName(c.user));
      return undefined;
    }),
    sub(
      'help',
      2,
      ['loading', 'stale'],
      'Returns helpful text about the different subcommands.',
      helpReply(HELP),
    ),
    sub(
      'genpass',
      -2,
      OPEN,
      'Generates a pseudorandom, secure password that can be used to identify ACL users.',
      genpass,
    ),
    sub(
      'load',
      2,
      ADMIN,
      'Reloads the rules from the configured ACL file.',
      withAclFile((c, file) => {
        const errors = loadAclFile(c.server, file, c);
        if (errors !== null) throw aclError(errors, true);
        c.reply.simple('OK');
      }),
    ),
  ],
};
