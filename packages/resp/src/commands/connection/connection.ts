import { eqi, integerOrNaN, isPrintableNoSpace, parseInteger } from '../../args.js';
import {
  CommandError,
  dbIndexError,
  noPasswordError,
  noProtoError,
  syntaxError,
  wrongArityError,
  wrongPassError,
} from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition } from '../../server/command-table.js';
import { SERVER_NAME, SERVER_VERSION } from '../server/server-info.js';
import { NO_KEYS } from '../shared/key-positions.js';

const EMPTY = Buffer.alloc(0);

const conn = { group: 'connection', since: '1.0.0', complexity: 'O(1)' } as const;

const DEFAULT_USER = Buffer.from('default');

/**
 * AUTH's check of `user` (null: the default user) and `password` through
 * the ACL users (requirepass is the default user's password); a failure is
 * logged in ACL LOG with the command's name as sent (`command`).
 */
export function authenticate(
  c: Client,
  user: Buffer | null,
  password: Buffer,
  command: Buffer,
): void {
  const users = c.server.users;
  // The one-argument form with a nopass default user: Redis's old error.
  if (user === null && users.defaultUser.nopass) throw noPasswordError();
  if (!users.authenticate(c, user ?? DEFAULT_USER, password, command)) throw wrongPassError();
}

function validateName(name: Buffer): void {
  if (!isPrintableNoSpace(name)) {
    throw new CommandError(
      'ERR_SYNTAX',
      'ERR Client names cannot contain spaces, newlines or special characters.',
    );
  }
}

export function setClientName(c: Client, name: Buffer): void {
  validateName(name);
  c.name = name.length === 0 ? null : Buffer.from(name);
}

function hello(c: Client, argv: Buffer[]): undefined {
  let version = 0;
  let i = 1;
  if (argv.length > 1) {
    const v = integerOrNaN(argv[1]!);
    if (Number.isNaN(v)) {
      throw new CommandError(
        'ERR_NOT_INTEGER',
        'ERR Protocol version is not an integer or out of range',
      );
    }
    if (v < 2 || v > 3) throw noProtoError();
    version = v;
    i = 2;
  }
  let user: Buffer | null = null;
  let password: Buffer | null = null;
  let name: Buffer | null = null;
  for (; i < argv.length; i++) {
    const more = argv.length - 1 - i;
    const opt = argv[i]!;
    if (eqi(opt, 'auth') && more >= 2) {
      c.redact(i + 1);
      c.redact(i + 2);
      user = argv[i + 1]!;
      password = argv[i + 2]!;
      i += 2;
    } else if (eqi(opt, 'setname') && more >= 1) {
      name = argv[i + 1]!;
      validateName(name);
      i++;
    } else {
      throw new CommandError(
        'ERR_SYNTAX',
        `ERR Syntax error in HELLO option '${opt.toString('latin1')}'`,
        true,
      );
    }
  }
  if (user !== null && password !== null) authenticate(c, user, password, argv[0]!);
  if (!c.authenticated) {
    throw new CommandError(
      'ERR_NOAUTH',
      'NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time',
    );
  }
  if (name !== null) setClientName(c, name);
  if (version !== 0) c.protocol = version === 3 ? 3 : 2;
  const w = c.reply;
  w.map(7);
  w.bulk('server').bulk(SERVER_NAME);
  w.bulk('version').bulk(SERVER_VERSION);
  w.bulk('proto').integer(c.protocol);
  w.bulk('id').integer(c.id);
  w.bulk('mode').bulk('standalone');
  w.bulk('role').bulk('master');
  w.bulk('modules').array(0);
  return undefined;
}

export const connectionCommands: CommandDefinition[] = [
  {
    name: 'ping',
    refusedOnWriteError: true,
    arity: -1,
    flags: ['fast'],
    ...NO_KEYS,
    acl: ['connection'],
    ...conn,
    tips: ['request_policy:all_shards', 'response_policy:all_succeeded'],
    summary: "Returns the server's liveliness response.",
    allowedWhileSubscribed: true,
    handler(c, argv) {
      if (argv.length > 2) throw wrongArityError('ping');
      if (c.subscribed && c.protocol === 2) {
        // Redis's reply in the RESP2 pub/sub context: a ["pong", message] frame.
        c.reply
          .array(2)
          .bulk('pong')
          .bulk(argv.length === 2 ? argv[1]! : EMPTY);
      } else if (argv.length === 2) c.reply.bulk(argv[1]!);
      else c.reply.simple('PONG');
      return undefined;
    },
  },
  {
    name: 'echo',
    arity: 2,
    flags: ['fast'],
    ...NO_KEYS,
    acl: ['connection'],
    ...conn,
    summary: 'Returns the given string.',
    handler(c, argv) {
      c.reply.bulk(argv[1]!);
      return undefined;
    },
  },
  {
    name: 'hello',
    arity: -1,
    flags: ['noscript', 'loading', 'stale', 'fast', 'no_auth', 'allow_busy'],
    ...NO_KEYS,
    acl: ['connection'],
    ...conn,
    since: '6.0.0',
    summary: 'Handshakes with the Redis server.',
    handler: hello,
  },
  {
    name: 'auth',
    arity: -2,
    flags: ['noscript', 'loading', 'stale', 'fast', 'no_auth', 'allow_busy'],
    ...NO_KEYS,
    acl: ['connection'],
    ...conn,
    complexity: 'O(N) where N is the number of passwords defined for the user',
    summary: 'Authenticates the connection.',
    handler(c, argv) {
      if (argv.length > 3) throw syntaxError();
      // SLOWLOG and MONITOR show `(redacted)`, as Redis.
      c.redact(1);
      if (argv.length === 2) authenticate(c, null, argv[1]!, argv[0]!);
      else {
        c.redact(2);
        authenticate(c, argv[1]!, argv[2]!, argv[0]!);
      }
      c.reply.simple('OK');
      return undefined;
    },
  },
  {
    name: 'select',
    arity: 2,
    flags: ['loading', 'stale', 'fast'],
    ...NO_KEYS,
    acl: ['connection'],
    ...conn,
    summary: 'Changes the selected database.',
    handler(c, argv) {
      const db = parseInteger(argv[1]!);
      if (db < 0 || db >= c.server.keyspace.count) throw dbIndexError();
      c.db = db;
      c.reply.simple('OK');
      return undefined;
    },
  },
  {
    name: 'quit',
    runsInMulti: true,
    arity: -1,
    flags: ['allow_busy', 'noscript', 'loading', 'stale', 'fast', 'no_auth'],
    ...NO_KEYS,
    acl: ['connection'],
    ...conn,
    allowedWhileSubscribed: true,
    summary: 'Closes the connection.',
    handler(c) {
      c.reply.simple('OK');
      c.closeAfterReply = true;
      return undefined;
    },
  },
  {
    name: 'reset',
    runsInMulti: true,
    arity: 1,
    flags: ['noscript', 'loading', 'stale', 'fast', 'no_auth', 'allow_busy'],
    ...NO_KEYS,
    acl: ['connection'],
    ...conn,
    since: '6.2.0',
    allowedWhileSubscribed: true,
    summary: 'Resets the connection.',
    handler(c) {
      for (const onClientReset of c.server.hooks.onClientReset) onClientReset(c);
      c.multi = null;
      c.unwatchAll();
      c.db = 0;
      c.protocol = 2;
      c.name = null;
      c.noEvict = false;
      c.noTouch = false;
      c.setReplyMode('on');
      // clientSetDefaultAuth: back to the default user.
      c.user = c.server.users.defaultUser;
      c.setAuthenticated(!c.server.authRequired);
      c.reply.simple('RESET');
      return undefined;
    },
  },
];
