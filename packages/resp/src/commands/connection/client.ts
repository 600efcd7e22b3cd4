import { eqi, integerOrNaN, isPrintableNoSpace, parseInteger } from '../../args.js';
import { CommandError, noSuchClientError, syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandFlagName } from '../../server/command-table.js';
import { formatAddress } from '../../server/connection.js';
import { unblockClient } from '../blocking/blocking-registry.js';
import { subscriptionCounts } from '../pubsub/subscriptions.js';
import { helpReply } from '../shared/help-reply.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { trackingListFields, trackingSubcommands } from '../tracking/tracking-commands.js';
import { clientPauseSubcommands } from './client-pause.js';
import { clientReplySubcommand } from './client-reply.js';
import { setClientName } from './connection.js';

const CLIENT_FLAGS: CommandFlagName[] = ['noscript', 'loading', 'stale'];
const ADMIN_FLAGS: CommandFlagName[] = ['admin', 'noscript', 'loading', 'stale'];

export function clientAddress(c: Client): string {
  return c.peerId;
}

function localAddress(c: Client): string {
  if (c.unixSocket !== null) return `${c.unixSocket}:0`;
  return formatAddress(c.socket.localAddress, c.socket.localPort);
}

/** One CLIENT LIST line, with the fields Redis 7.2 prints, in its order. */
export function clientInfoLine(c: Client): string {
  const now = Date.now();
  let flags = '';
  const tracking = trackingListFields(c);
  if (c.monitoring) flags += 'O';
  if (c.subscribed) flags += 'P';
  if (c.multi !== null) flags += 'x';
  if (c.pauseHeld) flags += 'b';
  flags += tracking.flags;
  if (c.unixSocket !== null) flags += 'U';
  if (c.noEvict) flags += 'e';
  if (c.noTouch) flags += 'T';
  if (flags === '') flags = 'N';
  const name = c.name === null ? '' : c.name.toString('latin1');
  const subs = subscriptionCounts(c);
  return (
    `id=${c.id} addr=${clientAddress(c)} laddr=${localAddress(c)} fd=-1 name=${name}` +
    ` age=${Math.floor((now - c.createdAt) / 1000)} idle=${Math.floor((now - c.lastInteraction) / 1000)}` +
    ` flags=${flags} db=${c.db} sub=${subs.channels} psub=${subs.patterns} ssub=${subs.shardChannels} multi=${c.multi === null ? -1 : c.multi.queue.length}` +
    ` qbuf=${c.parser.bufferedBytes - c.parser.argvMemory} qbuf-free=0 argv-mem=${c.parser.argvMemory} multi-mem=0 rbs=0 rbp=0` +
    ` obl=${c.reply.pendingBytes} oll=0 omem=${c.socket.writableLength} tot-mem=0 events=r` +
    ` cmd=${c.lastCommand} user=${c.user.name} redir=${tracking.redir} resp=${c.protocol} lib-name=${c.libName} lib-ver=${c.libVer}\n`
  );
}

/** What the CLIENT subcommands share. */
const clientSubcommand = {
  ...NO_KEYS,
  acl: ['connection'],
  group: 'connection',
  complexity: 'O(1)',
} as const;

const HELP = [
  'CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'CACHING (YES|NO)',
  '    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.',
  'GETREDIR',
  '    Return the client ID we are redirecting to when tracking is enabled.',
  'GETNAME',
  '    Return the name of the current connection.',
  'ID',
  '    Return the ID of the current connection.',
  'INFO',
  '    Return information about the current client connection.',
  'KILL <ip:port>',
  '    Kill connection made from <ip:port>.',
  'KILL <option> <value> [<option> <value> [...]]',
  '    Kill connections. Options are:',
  '    * ADDR (<ip:port>|<unixsocket>:0)',
  '      Kill connections made from the specified address',
  '    * LADDR (<ip:port>|<unixsocket>:0)',
  '      Kill connections made to specified local address',
  '    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)',
  '      Kill connections by type.',
  '    * USER <username>',
  '      Kill connections authenticated by <username>.',
  '    * SKIPME (YES|NO)',
  '      Skip killing current connection (default: yes).',
  '    * ID <client-id>',
  '      Kill connections by client id.',
  'LIST [options ...]',
  '    Return information about client connections. Options:',
  '    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)',
  '      Return clients of specified type.',
  'UNPAUSE',
  '    Stop the current client pause, resuming traffic.',
  'PAUSE <timeout> [WRITE|ALL]',
  '    Suspend all, or just write, clients for <timeout> milliseconds.',
  'REPLY (ON|OFF|SKIP)',
  '    Control the replies sent to the current connection.',
  'SETNAME <name>',
  '    Assign the name <name> to the current connection.',
  'SETINFO <option> <value>',
  '    Set client meta attr. Options are:',
  '    * LIB-NAME: the client lib name.',
  '    * LIB-VER: the client lib version.',
  'UNBLOCK <clientid> [TIMEOUT|ERROR]',
  '    Unblock the specified blocked client.',
  'TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]',
  '         [OPTIN] [OPTOUT] [NOLOOP]',
  '    Control server assisted client side caching.',
  'TRACKINGINFO',
  '    Report tracking status for the current connection.',
  'NO-EVICT (ON|OFF)',
  '    Protect current client connection from eviction.',
  'NO-TOUCH (ON|OFF)',
  '    Will not touch LRU/LFU stats when this mode is on.',
  'HELP',
  '    Prints this help.',
];

function list(c: Client, argv: Buffer[]): undefined {
  let clients: Iterable<Client> = c.server.clients.values();
  let i = 2;
  if (argv.length > 2) {
    if (eqi(argv[2]!, 'type') && argv.length === 4) {
      const t = argv[3]!;
      const all = [...c.server.clients.values()];
      if (eqi(t, 'normal')) clients = all.filter((x) => !x.subscribed);
      else if (eqi(t, 'pubsub')) clients = all.filter((x) => x.subscribed);
      else if (eqi(t, 'master') || eqi(t, 'replica') || eqi(t, 'slave')) {
        clients = [];
      } else {
        throw new CommandError(
          'ERR_SYNTAX',
          `ERR Unknown client type '${t.toString('latin1')}'`,
          true,
        );
      }
    } else if (eqi(argv[2]!, 'id') && argv.length >= 4) {
      const picked: Client[] = [];
      for (i = 3; i < argv.length; i++) {
        const id = integerOrNaN(argv[i]!);
        if (!(id > 0)) throw new CommandError('ERR_SYNTAX', 'ERR Invalid client ID');
        const found = c.server.clients.get(id);
        if (found !== undefined) picked.push(found);
      }
      clients = picked;
    } else {
      throw syntaxError();
    }
  }
  let text = '';
  for (const other of clients) text += clientInfoLine(other);
  c.reply.verbatim(text);
  return undefined;
}

function kill(c: Client, argv: Buffer[]): undefined {
  const clients = c.server.clients;
  if (argv.length === 3) {
    // The old form: CLIENT KILL ip:port.
    const addr = argv[2]!.toString('latin1');
    for (const other of clients.values()) {
      if (clientAddress(other) === addr) {
        killClient(c, other);
        c.reply.simple('OK');
        return undefined;
      }
    }
    throw noSuchClientError();
  }
  if (argv.length % 2 !== 0) throw syntaxError();
  let id = 0;
  let addr: string | null = null;
  let laddr: string | null = null;
  let user: string | null = null;
  let type: string | null = null;
  let skipMe = true;
  for (let i = 2; i < argv.length; i += 2) {
    const opt = argv[i]!;
    const val = argv[i + 1]!;
    if (eqi(opt, 'id')) {
      id = integerOrNaN(val);
      if (!(id > 0)) {
        throw new CommandError('ERR_SYNTAX', 'ERR client-id should be greater than 0');
      }
    } else if (eqi(opt, 'addr')) addr = val.toString('latin1');
    else if (eqi(opt, 'laddr')) laddr = val.toString('latin1');
    else if (eqi(opt, 'user')) user = val.toString('latin1');
    else if (eqi(opt, 'type')) {
      if (eqi(val, 'normal')) type = 'normal';
      else if (eqi(val, 'pubsub')) type = 'pubsub';
      else if (eqi(val, 'master') || eqi(val, 'replica') || eqi(val, 'slave')) {
        type = 'other';
      } else {
        throw new CommandError(
          'ERR_SYNTAX',
          `ERR Unknown client type '${val.toString('latin1')}'`,
          true,
        );
      }
    } else if (eqi(opt, 'skipme')) {
      if (eqi(val, 'yes')) skipMe = true;
      else if (eqi(val, 'no')) skipMe = false;
      else throw syntaxError();
    } else if (eqi(opt, 'maxage')) {
      parseInteger(val);
    } else {
      throw syntaxError();
    }
  }
  let killed = 0;
  for (const other of [...clients.values()]) {
    if (id !== 0 && other.id !== id) continue;
    if (addr !== null && clientAddress(other) !== addr) continue;
    if (laddr !== null && localAddress(other) !== laddr) continue;
    if (user !== null && user !== 'default') continue;
    if (type === 'other') continue;
    // A subscribed client is of Redis's pubsub class, every other one normal.
    if (type !== null && (type === 'pubsub') !== other.subscribed) continue;
    if (skipMe && other === c) continue;
    killClient(c, other);
    killed++;
  }
  c.reply.integer(killed);
  return undefined;
}

/** Another client goes at once; the caller itself after this reply, as in Redis. */
function killClient(c: Client, other: Client): void {
  if (other === c) c.closeAfterReply = true;
  else other.kill();
}

export const clientCommand: CommandDefinition = {
  name: 'client',
  arity: -2,
  flags: [],
  ...NO_KEYS,
  acl: [],
  group: 'connection',
  since: '2.4.0',
  complexity: 'Depends on subcommand.',
  summary: 'A container for client connection commands.',
  subcommands: [
    {
      name: 'id',
      arity: 2,
      flags: CLIENT_FLAGS,
      ...clientSubcommand,
      since: '5.0.0',
      summary: 'Returns the unique client ID of the connection.',
      handler: (c) => {
        c.reply.integer(c.id);
        return undefined;
      },
    },
    {
      name: 'setname',
      arity: 3,
      flags: CLIENT_FLAGS,
      ...clientSubcommand,
      since: '2.6.9',
      summary: 'Sets the connection name.',
      handler: (c, argv) => {
        setClientName(c, argv[2]!);
        c.reply.simple('OK');
        return undefined;
      },
    },
    {
      name: 'getname',
      arity: 2,
      flags: CLIENT_FLAGS,
      ...clientSubcommand,
      since: '2.6.9',
      summary: 'Returns the name of the connection.',
      handler: (c) => {
        if (c.name === null) c.reply.null();
        else c.reply.bulk(c.name);
        return undefined;
      },
    },
    {
      name: 'setinfo',
      arity: 4,
      flags: CLIENT_FLAGS,
      ...clientSubcommand,
      since: '7.2.0',
      summary: 'Sets information specific to the client or connection.',
      handler: (c, argv) => {
        const attr = argv[2]!;
        const value = argv[3]!;
        let field: 'libName' | 'libVer';
        if (eqi(attr, 'lib-name')) field = 'libName';
        else if (eqi(attr, 'lib-ver')) field = 'libVer';
        else {
          throw new CommandError(
            'ERR_SYNTAX',
            `ERR Unrecognized option '${attr.toString('latin1')}'`,
            true,
          );
        }
        if (!isPrintableNoSpace(value)) {
          throw new CommandError(
            'ERR_SYNTAX',
            `ERR ${field === 'libName' ? 'lib-name' : 'lib-ver'} cannot contain spaces, newlines or special characters.`,
          );
        }
        c[field] = value.toString('latin1');
        c.reply.simple('OK');
        return undefined;
      },
    },
    {
      name: 'list',
      arity: -2,
      flags: ADMIN_FLAGS,
      ...clientSubcommand,
      since: '2.4.0',
      summary: 'Lists open connections.',
      handler: list,
    },
    {
      name: 'info',
      arity: 2,
      flags: CLIENT_FLAGS,
      ...clientSubcommand,
      since: '6.2.0',
      summary: 'Returns information about the connection.',
      handler: (c) => {
        c.reply.verbatim(clientInfoLine(c));
        return undefined;
      },
    },
    {
      name: 'kill',
      arity: -3,
      flags: ADMIN_FLAGS,
      ...clientSubcommand,
      since: '2.4.0',
      summary: 'Terminates open connections.',
      handler: kill,
    },
    {
      name: 'unblock',
      arity: -3,
      flags: ADMIN_FLAGS,
      ...clientSubcommand,
      since: '5.0.0',
      summary: 'Unblocks a client blocked by a blocking command from a different connection.',
      handler: (c, argv) => {
        const id = parseInteger(argv[2]!);
        let error = false;
        if (argv.length === 4) {
          if (eqi(argv[3]!, 'error')) error = true;
          else if (!eqi(argv[3]!, 'timeout')) {
            throw new CommandError(
              'ERR_SYNTAX',
              'ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR',
            );
          }
        } else if (argv.length > 4) throw syntaxError();
        const other = c.server.clients.get(id);
        c.reply.integer(other !== undefined && unblockClient(c.server, other, error) ? 1 : 0);
        return undefined;
      },
    },
    {
      name: 'no-evict',
      arity: 3,
      flags: ADMIN_FLAGS,
      ...clientSubcommand,
      since: '7.0.0',
      summary: 'Sets the client eviction mode of the connection.',
      handler: (c, argv) => {
        if (eqi(argv[2]!, 'on')) c.noEvict = true;
        else if (eqi(argv[2]!, 'off')) c.noEvict = false;
        else throw syntaxError();
        c.reply.simple('OK');
        return undefined;
      },
    },
    {
      name: 'no-touch',
      arity: 3,
      flags: CLIENT_FLAGS,
      ...clientSubcommand,
      since: '7.2.0',
      summary: 'Controls whether commands sent by the client affect the LRU/LFU of accessed keys.',
      handler: (c, argv) => {
        if (eqi(argv[2]!, 'on')) c.noTouch = true;
        else if (eqi(argv[2]!, 'off')) c.noTouch = false;
        else throw syntaxError();
        c.reply.simple('OK');
        return undefined;
      },
    },
    clientReplySubcommand,
    ...clientPauseSubcommands,
    ...trackingSubcommands,
    {
      name: 'help',
      arity: 2,
      flags: ['loading', 'stale'],
      ...clientSubcommand,
      since: '5.0.0',
      summary: 'Returns helpful text about the different subcommands.',
      handler: helpReply(HELP),
    },
  ],
};
