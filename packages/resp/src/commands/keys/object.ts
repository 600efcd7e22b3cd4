import { RecordType } from '@strata/hlog';
import { parseLongLong } from '@strata/protocol';
import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type {
  CommandDefinition,
  CommandHandler,
  CommandResult,
} from '../../server/command-table.js';
import { genericGroup } from '../shared/command-groups.js';
import { expiredOnMiss } from '../shared/expiry.js';
import { helpReply } from '../shared/help-reply.js';
import { NO_KEYS } from '../shared/key-positions.js';

/** Redis 7's OBJ_ENCODING_EMBSTR_SIZE_LIMIT. */
const EMBSTR_LIMIT = 44;
/** OBJ_SHARED_REFCOUNT: what REFCOUNT reports for a shared integer (0 .. 9999). */
const SHARED_REFCOUNT = 2147483647;
const SHARED_INTEGERS = 10000;

/** A value Redis's tryObjectEncoding would keep as an integer, or NaN. */
function intValue(bytes: Uint8Array, off: number, len: number): number {
  if (len === 0 || len > 20) return Number.NaN;
  return parseLongLong(bytes, off, off + len);
}

/** The encoding Redis 7 gives a string it stored with SET. */
export function stringEncoding(bytes: Uint8Array, off: number, len: number): string {
  if (!Number.isNaN(intValue(bytes, off, len))) return 'int';
  return len <= EMBSTR_LIMIT ? 'embstr' : 'raw';
}

/** What OBJECT REFCOUNT reports for a string value (DEBUG OBJECT too). */
export function refCount(bytes: Uint8Array, off: number, len: number): number {
  const v = intValue(bytes, off, len);
  return v >= 0 && v < SHARED_INTEGERS ? SHARED_REFCOUNT : 1;
}

/**
 * Looks the key up and replies with `f` of its value, null when it is
 * missing. OBJECT's lookup (Redis's objectCommandLookup) notifies no key
 * miss, but a key it finds expired is `expired`.
 */
function withValue(
  f: (c: Client, bytes: Uint8Array, off: number, len: number) => void,
): CommandHandler {
  return (c, argv): CommandResult => {
    const key = argv[2]!;
    const v = c.store.read(key);
    if (v.status === 'found') f(c, v.bytes, v.offset, v.length);
    else if (v.status === 'notFound') {
      expiredOnMiss(c, key, false);
      c.reply.null();
    } else {
      return v.pending.then((r) => {
        if (r.status === 'found') f(c, r.value, 0, r.value.length);
        else {
          expiredOnMiss(c, key, true);
          c.reply.null();
        }
      });
    }
    return undefined;
  };
}

/**
 * OBJECT ENCODING: a string's from its bytes; a collection's from its
 * structure (listpack, intset, hashtable...), loaded into the cache if need be.
 */
const encoding: CommandHandler = (c, argv): CommandResult => {
  const key = argv[2]!;
  const reply = (
    r: { status: 'found'; type: number } | { status: 'notFound' },
    waited: boolean,
  ): CommandResult => {
    if (r.status === 'notFound') {
      expiredOnMiss(c, key, waited);
      c.reply.null();
      return undefined;
    }
    if (r.type === RecordType.STRING) {
      const v = c.store.read(key);
      if (v.status === 'found') c.reply.bulk(stringEncoding(v.bytes, v.offset, v.length));
      else if (v.status === 'notFound') c.reply.null();
      else {
        return v.pending.then((x) => {
          if (x.status === 'found') c.reply.bulk(stringEncoding(x.value, 0, x.value.length));
          else c.reply.null();
        });
      }
      return undefined;
    }
    const found = c.collections.get(key, r.type);
    const answer = (x: Awaited<typeof found>) => {
      if (x.status === 'found') c.reply.bulk(x.value.encoding());
      else c.reply.null();
    };
    if (found instanceof Promise) return found.then(answer);
    answer(found);
    return undefined;
  };
  const p = c.store.probe(key);
  if (p.status === 'pending') return p.pending.then((r) => reply(r, true));
  return reply(p, false);
};

/** Redis's words, after the note both share. */
const SWITCH_NOTE =
  'Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.';

/**
 * The access word of a key just found (its index entry's, shared with the
 * keys of the same entry; access-clock.ts in @strata/hlog).
 */
export function accessWordOf(c: Client, key: Buffer): number {
  const word = c.store.accessWord(key);
  return word < 0 ? c.server.access.fresh : word;
}

/**
 * OBJECT FREQ and IDLETIME, after the key was found: Redis's refusal when
 * the policy does not keep that figure (FREQ without an LFU
 * maxmemory-policy, IDLETIME with one), else the figure from the key's
 * access word, as Redis's estimateObjectIdleTime / 1000 and LFUDecrAndReturn.
 */
function accessFigure(c: Client, key: Buffer, wanted: 'freq' | 'idletime'): void {
  const access = c.server.access;
  if (wanted === 'freq' && !access.lfu) {
    throw new CommandError(
      'ERR_UNSUPPORTED',
      `ERR An LFU maxmemory policy is not selected, access frequency not tracked. ${SWITCH_NOTE}`,
    );
  }
  if (wanted === 'idletime' && access.lfu) {
    throw new CommandError(
      'ERR_UNSUPPORTED',
      `ERR An LFU maxmemory policy is selected, idle time not tracked. ${SWITCH_NOTE}`,
    );
  }
  const word = accessWordOf(c, key);
  c.reply.integer(
    wanted === 'freq' ? access.decayed(word) : Math.floor(access.idleMs(word) / 1000),
  );
}

/** OBJECT FREQ / IDLETIME: null for a missing key, else the figure (the value is not read). */
function accessCommand(wanted: 'freq' | 'idletime'): CommandHandler {
  return (c, argv): CommandResult => {
    const key = argv[2]!;
    const answer = (found: boolean, waited: boolean): void => {
      if (found) accessFigure(c, key, wanted);
      else {
        expiredOnMiss(c, key, waited);
        c.reply.null();
      }
    };
    const p = c.store.probe(key);
    if (p.status === 'pending') return p.pending.then((r) => answer(r.status === 'found', true));
    answer(p.status === 'found', false);
    return undefined;
  };
}

const HELP = [
  'OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'ENCODING <key>',
  '    Return the kind of internal representation used in order to store the value',
  '    associated with a <key>.',
  'FREQ <key>',
  '    Return the access frequency index of the <key>. The returned integer is',
  '    proportional to the logarithm of the recent access frequency of the key.',
  'IDLETIME <key>',
  '    Return the idle time of the <key>, that is the approximated number of',
  '    seconds elapsed since the last access to the key.',
  'REFCOUNT <key>',
  '    Return the number of references of the value associated with the specified',
  '    <key>.',
  'HELP',
  '    Prints this help.',
];

/** What the OBJECT subcommands but HELP share: one key, the second argument. */
const objectSubcommand = {
  arity: 3,
  flags: ['readonly'],
  firstKey: 2,
  lastKey: 2,
  step: 1,
  ...genericGroup,
  // As Redis: the key is read, not its value's contents (no `access`).
  keyFlags: ['RO'],
  tips: ['nondeterministic_output'],
  complexity: 'O(1)',
  // Redis's objectCommandLookup: LOOKUP_NOTOUCH.
  touch: 'none',
} as const;

export const objectCommand: CommandDefinition = {
  name: 'object',
  arity: -2,
  flags: [],
  ...NO_KEYS,
  acl: [],
  group: 'generic',
  since: '2.2.3',
  complexity: 'Depends on subcommand.',
  summary: 'A container for object introspection commands.',
  subcommands: [
    {
      name: 'encoding',
      ...objectSubcommand,
      since: '2.2.3',
      summary: 'Returns the internal encoding of a Redis object.',
      handler: encoding,
    },
    {
      name: 'freq',
      ...objectSubcommand,
      since: '4.0.0',
      summary: 'Returns the logarithmic access frequency counter of a Redis object.',
      handler: accessCommand('freq'),
    },
    {
      name: 'idletime',
      ...objectSubcommand,
      since: '2.2.3',
      summary: 'Returns the time since the last access to a Redis object.',
      handler: accessCommand('idletime'),
    },
    {
      name: 'refcount',
      ...objectSubcommand,
      since: '2.2.3',
      summary: 'Returns the reference count of a value of a key.',
      handler: withValue((c, b, o, l) => {
        c.reply.integer(refCount(b, o, l));
      }),
    },
    {
      name: 'help',
      arity: 2,
      flags: ['loading', 'stale'],
      ...NO_KEYS,
      acl: ['keyspace'],
      group: 'generic',
      since: '6.2.0',
      complexity: 'O(1)',
      summary: 'Returns helpful text about the different subcommands.',
      handler: helpReply(HELP),
    },
  ],
};
