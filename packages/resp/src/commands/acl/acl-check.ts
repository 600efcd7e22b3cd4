import { CommandFlag, type CommandSpec } from '../../server/command-table.js';
import { callKeyIndexes, commandHasKeys, keyFlagsAt } from '../shared/call-keys.js';
import { READ, type Selector, WRITE } from './acl-selector.js';
import type { User } from './acl-user.js';

/** Redis's ACL_DENIED_*: the order is its precedence (a later one is the one reported). */
export type Denial = 'command' | 'key' | 'channel';
const RANK: Readonly<Record<Denial, number>> = { command: 1, key: 2, channel: 3 };

/** Why a user may not run a command: the reason and the argument it is about (a key, a channel). */
export interface Denied {
  readonly reason: Denial;
  readonly index: number;
}

/** A channel argument's kind, as Redis's getChannelsFromCommand gives it. */
type ChannelUse = 'publish' | 'subscribe' | 'psubscribe';

/**
 * The commands that name channels, and where (Redis's channel key specs:
 * publish its first argument, the subscribe commands every one). The
 * UNSUBSCRIBE commands are not checked, as in Redis.
 */
const CHANNEL_COMMANDS: Readonly<Record<string, { use: ChannelUse; all: boolean }>> = {
  publish: { use: 'publish', all: false },
  spublish: { use: 'publish', all: false },
  subscribe: { use: 'subscribe', all: true },
  ssubscribe: { use: 'subscribe', all: true },
  psubscribe: { use: 'psubscribe', all: true },
};

/** Read/write permission a key spec's flags need (ACLSelectorCheckKey). */
function keyNeeds(flags: readonly string[]): number {
  let need = 0;
  for (const f of flags) {
    if (f === 'access') need |= READ;
    else if (f === 'insert' || f === 'delete' || f === 'update') need |= WRITE;
  }
  return need;
}

/** ACLSelectorCheckCmd: null when this selector allows the call. */
function checkSelector(
  s: Selector,
  spec: CommandSpec,
  argv: readonly Buffer[],
  keys: { list: number[] | null },
): Denied | null {
  if (!s.allCommands && (spec.flags & CommandFlag.no_auth) === 0 && !s.allowed.has(spec)) {
    const first = s.firstArgs.get(spec);
    const idx = spec.parent !== null ? 2 : 1;
    if (first === undefined || argv.length <= idx) return { reason: 'command', index: 0 };
    const given = argv[idx]!.toString('latin1').toLowerCase();
    if (!first.some((a) => a.toLowerCase() === given)) return { reason: 'command', index: 0 };
  }
  if (!s.allKeys && commandHasKeys(spec) && !spec.keyFlags.includes('not_key')) {
    keys.list ??= callKeyIndexes(spec, argv);
    for (const i of keys.list) {
      const need = keyNeeds(keyFlagsAt(spec, i, argv));
      const key = argv[i]!;
      const ok = s.keys.some((p) => (p.flags & need) === need && p.glob.match(key));
      if (!ok) return { reason: 'key', index: i };
    }
  }
  const channels = s.allChannels ? undefined : CHANNEL_COMMANDS[spec.fullName];
  if (channels !== undefined) {
    const last = channels.all ? argv.length - 1 : Math.min(1, argv.length - 1);
    for (let i = 1; i <= last; i++) {
      if (!channelAllowed(s, argv[i]!, channels.use === 'psubscribe')) {
        return { reason: 'channel', index: i };
      }
    }
  }
  return null;
}

/**
 * ACLCheckChannelAgainstList: a channel is matched against the patterns,
 * a pattern (PSUBSCRIBE) only literally.
 */
export function channelAllowed(s: Selector, channel: Buffer, isPattern: boolean): boolean {
  if (s.allChannels) return true;
  for (const p of s.channels) {
    if (isPattern ? p.pattern.equals(channel) : p.glob.match(channel)) return true;
  }
  return false;
}

/**
 * ACLCheckAllUserCommandPerm: allowed when one selector allows it; else
 * the denial to report: the command when no selector allows it, else the
 * last key or channel no selector matched.
 */
export function checkCommand(u: User, spec: CommandSpec, argv: readonly Buffer[]): Denied | null {
  let relevant: Denied = { reason: 'command', index: 0 };
  const keys = { list: null as number[] | null };
  for (const s of u.selectors) {
    const d = checkSelector(s, spec, argv, keys);
    if (d === null) return null;
    if (
      RANK[d.reason] > RANK[relevant.reason] ||
      (d.reason === relevant.reason && d.index > relevant.index)
    ) {
      relevant = d;
    }
  }
  return relevant;
}
