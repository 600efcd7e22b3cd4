import { eqi, integerOrNaN } from '../../args.js';
import { CommandError, notIntegerError, syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandSpec } from '../../server/command-table.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { rememberKeys } from './invalidation.js';
import {
  type ClientTracking,
  clientTracking,
  type Prefix,
  trackingOf,
  trackingServer,
} from './tracking-state.js';

function trackingError(message: string): CommandError {
  return new CommandError('ERR_SYNTAX', `ERR ${message}`);
}

/** One is a prefix of the other (Redis's stringCheckPrefix). */
function overlaps(a: Buffer, b: Buffer): boolean {
  const n = Math.min(a.length, b.length);
  return a.compare(b, 0, n, 0, n) === 0;
}

interface TrackingOptions {
  redirect: number;
  bcast: boolean;
  optin: boolean;
  optout: boolean;
  noloop: boolean;
  prefixes: Buffer[];
}

/** CLIENT TRACKING's options, checked in Redis's order (clientCommand). */
function parseOptions(c: Client, argv: Buffer[]): TrackingOptions {
  const o: TrackingOptions = {
    redirect: 0,
    bcast: false,
    optin: false,
    optout: false,
    noloop: false,
    prefixes: [],
  };
  for (let j = 3; j < argv.length; j++) {
    const more = argv.length - 1 - j;
    const a = argv[j]!;
    if (eqi(a, 'redirect') && more > 0) {
      j++;
      if (o.redirect !== 0)
        throw trackingError('A client can only redirect to a single other client');
      const id = integerOrNaN(argv[j]!);
      if (Number.isNaN(id)) throw notIntegerError();
      if (!c.server.clients.has(id)) {
        throw trackingError('The client ID you want redirect to does not exist');
      }
      o.redirect = id;
    } else if (eqi(a, 'bcast')) o.bcast = true;
    else if (eqi(a, 'optin')) o.optin = true;
    else if (eqi(a, 'optout')) o.optout = true;
    else if (eqi(a, 'noloop')) o.noloop = true;
    else if (eqi(a, 'prefix') && more > 0) o.prefixes.push(Buffer.from(argv[++j]!));
    else throw syntaxError();
  }
  return o;
}

function trackingOn(c: Client, o: TrackingOptions): void {
  const t = c.state(clientTracking);
  if (!o.bcast && o.prefixes.length > 0) {
    throw trackingError('PREFIX option requires BCAST mode to be enabled');
  }
  if (t.on && t.bcast !== o.bcast) {
    throw trackingError(
      "You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.",
    );
  }
  if (o.bcast && (o.optin || o.optout)) {
    throw trackingError('OPTIN and OPTOUT are not compatible with BCAST');
  }
  if (o.optin && o.optout) throw trackingError("You can't specify both OPTIN mode and OPTOUT mode");
  if ((o.optin && t.optout) || (o.optout && t.optin)) {
    throw trackingError(
      "You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.",
    );
  }
  if (o.bcast) checkPrefixes(t, o.prefixes);
  const s = c.server.state(trackingServer);
  if (!t.on) {
    s.clients++;
    c.commandObserver = afterCommand;
  }
  t.on = true;
  t.brokenRedirect = false;
  t.redirect = o.redirect;
  t.bcast = o.bcast;
  t.optin = o.optin;
  t.optout = o.optout;
  t.noloop = o.noloop;
  if (o.bcast) {
    const prefixes = o.prefixes.length === 0 ? [Buffer.alloc(0)] : o.prefixes;
    for (const p of prefixes) addPrefix(c, t, p);
  }
}

function checkPrefixes(t: ClientTracking, prefixes: readonly Buffer[]): void {
  for (let i = 0; i < prefixes.length; i++) {
    const p = prefixes[i]!;
    for (const mine of sortedPrefixes(t)) {
      if (overlaps(mine, p)) {
        throw trackingError(
          `Prefix '${p.toString('latin1')}' overlaps with an existing prefix '${mine.toString('latin1')}'. Prefixes for a single client must not overlap.`,
        );
      }
    }
    for (let j = i + 1; j < prefixes.length; j++) {
      if (overlaps(p, prefixes[j]!)) {
        throw trackingError(
          `Prefix '${p.toString('latin1')}' overlaps with another provided prefix '${prefixes[j]!.toString('latin1')}'. Prefixes for a single client must not overlap.`,
        );
      }
    }
  }
}

function addPrefix(c: Client, t: ClientTracking, bytes: Buffer): void {
  if (t.prefixes.some((p) => p.equals(bytes))) return;
  t.prefixes.push(bytes);
  const all = c.server.state(trackingServer).prefixes;
  const name = bytes.toString('latin1');
  let p: Prefix | undefined = all.get(name);
  if (p === undefined) {
    p = { bytes, clients: new Set(), pending: new Map() };
    all.set(name, p);
  }
  p.clients.add(c);
}

/** The client's prefixes in byte order (Redis keeps them in a radix tree). */
function sortedPrefixes(t: ClientTracking): Buffer[] {
  return [...t.prefixes].sort((a, b) => a.compare(b));
}

/** CLIENT TRACKING OFF, RESET, a closed connection: the client leaves its prefixes; the keys it read are dropped lazily. */
export function trackingOff(c: Client): void {
  const t = c.peekState(clientTracking);
  if (t === undefined || !t.on) return;
  const s = c.server.state(trackingServer);
  for (const bytes of t.prefixes) {
    const name = bytes.toString('latin1');
    const p = s.prefixes.get(name);
    if (p === undefined) continue;
    p.clients.delete(c);
    if (p.clients.size === 0) s.prefixes.delete(name);
  }
  t.prefixes.length = 0;
  t.on = false;
  t.bcast = false;
  t.optin = false;
  t.optout = false;
  t.noloop = false;
  t.caching = 'none';
  t.brokenRedirect = false;
  s.clients--;
  c.commandObserver = null;
}

/**
 * After each command of a tracking client: the keys a read named are
 * remembered, and CLIENT CACHING's answer lapses once a command other than
 * CLIENT ran outside MULTI (Redis's resetClient).
 */
function afterCommand(c: Client, spec: CommandSpec, argv: readonly Buffer[]): void {
  const t = trackingOf(c);
  if (t === null) return;
  rememberKeys(c, t, spec, argv);
  const top = spec.parent ?? spec;
  if (!c.inExec && c.multi === null && top.name !== 'client') t.caching = 'none';
}

const trackingSubcommand = {
  ...NO_KEYS,
  acl: ['connection'],
  group: 'connection',
  complexity: 'O(1)',
  flags: ['noscript', 'loading', 'stale'],
} as const;

/** CLIENT TRACKING, CACHING, GETREDIR, TRACKINGINFO: the CLIENT container lists them. */
export const trackingSubcommands: CommandDefinition[] = [
  {
    name: 'tracking',
    arity: -3,
    ...trackingSubcommand,
    since: '6.0.0',
    complexity: 'O(1). Some options may introduce additional complexity.',
    summary: 'Controls server-assisted client-side caching for the connection.',
    handler(c, argv) {
      const o = parseOptions(c, argv);
      if (eqi(argv[2]!, 'on')) trackingOn(c, o);
      else if (eqi(argv[2]!, 'off')) trackingOff(c);
      else throw syntaxError();
      c.reply.simple('OK');
      return undefined;
    },
  },
  {
    name: 'caching',
    arity: 3,
    ...trackingSubcommand,
    since: '6.0.0',
    summary: 'Instructs the server whether to track the keys in the next request.',
    handler(c, argv) {
      const t = trackingOf(c);
      if (t === null) {
        throw trackingError(
          'CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled',
        );
      }
      if (eqi(argv[2]!, 'yes')) {
        if (!t.optin) {
          throw trackingError(
            'CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.',
          );
        }
        t.caching = 'yes';
      } else if (eqi(argv[2]!, 'no')) {
        if (!t.optout) {
          throw trackingError(
            'CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.',
          );
        }
        t.caching = 'no';
      } else throw syntaxError();
      c.reply.simple('OK');
      return undefined;
    },
  },
  {
    name: 'getredir',
    arity: 2,
    ...trackingSubcommand,
    since: '6.0.0',
    summary:
      "Returns the client ID to which the connection's tracking notifications are redirected.",
    handler(c) {
      const t = trackingOf(c);
      c.reply.integer(t === null ? -1 : t.redirect);
      return undefined;
    },
  },
  {
    name: 'trackinginfo',
    arity: 2,
    ...trackingSubcommand,
    since: '6.2.0',
    summary: 'Returns information about server-assisted client-side caching for the connection.',
    handler(c) {
      const t = trackingOf(c);
      const flags: string[] = [t === null ? 'off' : 'on'];
      if (t !== null) {
        if (t.bcast) flags.push('bcast');
        if (t.optin) flags.push('optin');
        if (t.optin && t.caching === 'yes') flags.push('caching-yes');
        if (t.optout) flags.push('optout');
        if (t.optout && t.caching === 'no') flags.push('caching-no');
        if (t.noloop) flags.push('noloop');
        if (t.brokenRedirect) flags.push('broken_redirect');
      }
      const w = c.reply;
      w.map(3);
      w.bulk('flags').set(flags.length);
      for (const f of flags) w.bulk(f);
      w.bulk('redirect').integer(t === null ? -1 : t.redirect);
      const prefixes = t === null ? [] : sortedPrefixes(t);
      w.bulk('prefixes').array(prefixes.length);
      for (const p of prefixes) w.bulk(p);
      return undefined;
    },
  },
];

/** CLIENT LIST's tracking flags (t, R, B) and `redir=`. */
export function trackingListFields(c: Client): { flags: string; redir: number } {
  const t = trackingOf(c);
  if (t === null) return { flags: '', redir: -1 };
  let flags = 't';
  if (t.brokenRedirect) flags += 'R';
  if (t.bcast) flags += 'B';
  return { flags, redir: t.redirect };
}
