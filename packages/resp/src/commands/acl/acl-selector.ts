import { compileGlob, type GlobMatcher } from '@strata/scan';
import {
  ACL_CATEGORIES,
  type AclCategory,
  type CommandSpec,
  type CommandTable,
} from '../../server/command-table.js';

/** Key permissions of a pattern (Redis's ACL_READ_PERMISSION, ACL_WRITE_PERMISSION). */
export const READ = 1;
export const WRITE = 2;
const ALL = READ | WRITE;

/** Why a rule did not apply: Redis's errno for it (ACLSetUserStringError words it). */
export type RuleError =
  | 'EINVAL'
  | 'ENOENT'
  | 'EEXIST'
  | 'EISDIR'
  | 'ENODEV'
  | 'EBADMSG'
  | 'ECHILD'
  | 'EALREADY';

export interface KeyPattern {
  readonly pattern: Buffer;
  flags: number;
  readonly glob: GlobMatcher;
}

export interface ChannelPattern {
  readonly pattern: Buffer;
  readonly glob: GlobMatcher;
}

/** Every command and subcommand of the table, in its order: a container before its subcommands. */
export function allSpecs(table: CommandTable): CommandSpec[] {
  const out: CommandSpec[] = [];
  for (const spec of table) {
    out.push(spec);
    if (spec.subcommands !== null) for (const sub of spec.subcommands) out.push(sub);
  }
  return out;
}

/** Categories a command's flags imply (setImplicitACLCategories). */
const FLAG_CATEGORIES: ReadonlySet<AclCategory> = new Set([
  'write',
  'read',
  'admin',
  'dangerous',
  'pubsub',
  'blocking',
  'fast',
  'slow',
]);

/**
 * A command's ACL categories: a container's are only what its flags imply
 * (Redis's containers declare none but COMMAND's: CLIENT is @slow alone),
 * the others' those of its definition.
 */
export function inCategory(spec: CommandSpec, category: AclCategory): boolean {
  if (!spec.acl.includes(category)) return false;
  return spec.subcommands === null || FLAG_CATEGORIES.has(category) || CATEGORIZED.has(spec.name);
}

/** The containers Redis 7.0 gives a category of their own (COMMAND: @connection). */
const CATEGORIZED: ReadonlySet<string> = new Set(['command']);

export function isCategory(name: string): name is AclCategory {
  return (ACL_CATEGORIES as readonly string[]).includes(name);
}

/**
 * One ACL selector (Redis's aclSelector): the commands it allows (a set
 * of specs where Redis keeps a bitmap), first arguments allowed of an
 * otherwise denied command, key patterns with their read/write flags,
 * channel patterns.
 */
export class Selector {
  allKeys = false;
  allChannels = false;
  /** SELECTOR_FLAG_ALLCOMMANDS: every command, no bit looked at (cleared by any `-`). */
  allCommands = false;
  /** Redis's reserved last bit: set by +@all, so ACL LIST starts with `+@all`. */
  future = false;
  readonly allowed = new Set<CommandSpec>();
  /** allowed_firstargs, by command. */
  readonly firstArgs = new Map<CommandSpec, string[]>();
  readonly keys: KeyPattern[] = [];
  readonly channels: ChannelPattern[] = [];

  constructor(
    readonly table: CommandTable,
    readonly root: boolean,
  ) {}

  copy(): Selector {
    const s = new Selector(this.table, this.root);
    s.allKeys = this.allKeys;
    s.allChannels = this.allChannels;
    s.allCommands = this.allCommands;
    s.future = this.future;
    for (const c of this.allowed) s.allowed.add(c);
    for (const [c, args] of this.firstArgs) s.firstArgs.set(c, [...args]);
    for (const k of this.keys) s.keys.push({ ...k });
    s.channels.push(...this.channels);
    return s;
  }

  /** Everything allowed: the dispatcher checks nothing for a user with such a selector. */
  get unrestricted(): boolean {
    return this.allCommands && this.allKeys && this.allChannels;
  }

  private setBit(spec: CommandSpec, allow: boolean): void {
    if (allow) this.allowed.add(spec);
    else {
      this.allowed.delete(spec);
      this.allCommands = false;
    }
  }

  /** ACLChangeSelectorPerm: a container's subcommands go with it. */
  private changePerm(spec: CommandSpec, allow: boolean): void {
    this.setBit(spec, allow);
    this.firstArgs.delete(spec);
    if (spec.subcommands !== null) for (const sub of spec.subcommands) this.setBit(sub, allow);
  }

  private setCategory(category: AclCategory, allow: boolean): void {
    for (const spec of this.table) {
      if (inCategory(spec, category)) this.changePerm(spec, allow);
      if (spec.subcommands === null) continue;
      for (const sub of spec.subcommands)
        if (inCategory(sub, category)) this.changePerm(sub, allow);
    }
  }

  private setAll(allow: boolean): void {
    this.allowed.clear();
    if (allow) for (const s of allSpecs(this.table)) this.allowed.add(s);
    this.allCommands = allow;
    this.future = allow;
    this.firstArgs.clear();
  }

  /** The command `name` (`get`, `config|get`) as ACL names it, or undefined. */
  lookup(name: string): CommandSpec | undefined {
    const bar = name.indexOf('|');
    if (bar === -1) return this.table.get(name);
    const parent = this.table.get(name.slice(0, bar));
    return parent?.subcommands?.get(name.slice(bar + 1));
  }

  /** ACLSetSelector: one rule; null when it applied. `op` is latin1 (bytes as given). */
  apply(op: string): RuleError | null {
    const lower = op.toLowerCase();
    if (lower === 'allkeys' || op === '~*') {
      this.allKeys = true;
      this.keys.length = 0;
    } else if (lower === 'resetkeys') {
      this.allKeys = false;
      this.keys.length = 0;
    } else if (lower === 'allchannels' || op === '&*') {
      this.allChannels = true;
      this.channels.length = 0;
    } else if (lower === 'resetchannels') {
      this.allChannels = false;
      this.channels.length = 0;
    } else if (lower === 'allcommands' || lower === '+@all') {
      this.setAll(true);
    } else if (lower === 'nocommands' || lower === '-@all') {
      this.setAll(false);
    } else if (op[0] === '~' || op[0] === '%') {
      if (this.allKeys) return 'EEXIST';
      let flags = 0;
      let offset = 1;
      if (op[0] === '%') {
        for (; offset < op.length; offset++) {
          const ch = op[offset]!.toUpperCase();
          if (ch === 'R' && (flags & READ) === 0) flags |= READ;
          else if (ch === 'W' && (flags & WRITE) === 0) flags |= WRITE;
          else if (op[offset] === '~') {
            offset++;
            break;
          } else return 'EINVAL';
        }
      } else flags = ALL;
      const text = op.slice(offset);
      if (hasSpaces(text)) return 'EINVAL';
      const pattern = Buffer.from(text, 'latin1');
      const same = this.keys.find((k) => k.pattern.equals(pattern));
      if (same === undefined) this.keys.push({ pattern, flags, glob: compileGlob(pattern) });
      else same.flags |= flags;
      this.allKeys = false;
    } else if (op[0] === '&') {
      if (this.allChannels) return 'EISDIR';
      const text = op.slice(1);
      if (hasSpaces(text)) return 'EINVAL';
      const pattern = Buffer.from(text, 'latin1');
      if (!this.channels.some((c) => c.pattern.equals(pattern))) {
        this.channels.push({ pattern, glob: compileGlob(pattern) });
      }
      this.allChannels = false;
    } else if (op[0] === '+' && op[1] !== '@') {
      const name = op.slice(1).toLowerCase();
      const bar = name.lastIndexOf('|');
      if (bar === -1) {
        const spec = this.table.get(name);
        if (spec === undefined) return 'ENOENT';
        this.changePerm(spec, true);
        return null;
      }
      const spec = this.table.get(name.slice(0, bar)) ?? this.lookup(name.slice(0, bar));
      if (spec === undefined) return 'ENOENT';
      if (spec.parent !== null) return 'ECHILD';
      const sub = name.slice(bar + 1);
      if (sub.length === 0) return 'EINVAL';
      if (spec.subcommands !== null) {
        const s = spec.subcommands.get(sub);
        if (s === undefined) return 'ENOENT';
        this.changePerm(s, true);
      } else {
        // SELECT|0: Redis's allowed first-args of an otherwise denied command.
        const list = this.firstArgs.get(spec);
        const given = op.slice(1 + bar + 1);
        if (list === undefined) this.firstArgs.set(spec, [given]);
        else if (!list.some((a) => a.toLowerCase() === given.toLowerCase())) list.push(given);
      }
    } else if (op[0] === '-' && op[1] !== '@') {
      const spec = this.lookup(op.slice(1).toLowerCase());
      if (spec === undefined) return 'ENOENT';
      this.changePerm(spec, false);
    } else if ((op[0] === '+' || op[0] === '-') && op[1] === '@') {
      const category = op.slice(2).toLowerCase();
      if (!isCategory(category)) return 'ENOENT';
      this.setCategory(category, op[0] === '+');
    } else {
      return 'EINVAL';
    }
    return null;
  }

  /** ACLDescribeSelector: keys, channels, then the command rules. */
  describe(): string {
    let out = '';
    if (this.allKeys) out += '~* ';
    else for (const k of this.keys) out += `${keyPatternText(k)} `;
    if (this.allChannels) out += '&* ';
    else {
      out += 'resetchannels ';
      for (const c of this.channels) out += `&${c.pattern.toString('latin1')} `;
    }
    return out + this.describeCommands();
  }

  /** ACL GETUSER's `keys`: the patterns one space apart. */
  keysText(): string {
    if (this.allKeys) return '~*';
    return this.keys.map(keyPatternText).join(' ');
  }

  channelsText(): string {
    if (this.allChannels) return '&*';
    return this.channels.map((c) => `&${c.pattern.toString('latin1')}`).join(' ');
  }

  /**
   * ACLDescribeSelectorCommandRules: +@all or -@all, then the categories
   * that fit best (more commands in common than different), then single
   * commands, applied to a scratch selector as they are written so the
   * result sets exactly this selector's commands.
   */
  describeCommands(): string {
    const additive = !this.future;
    const fake = new Selector(this.table, false);
    let rules = additive ? '-@all ' : '+@all ';
    fake.setAll(!additive);
    // What is left to account for: categories applied are flipped on it.
    const temp = new Selector(this.table, false);
    for (const c of this.allowed) temp.allowed.add(c);
    const applied = new Set<AclCategory>();
    const specs = allSpecs(this.table);
    for (;;) {
      let best: AclCategory | null = null;
      let minDiff = Number.MAX_SAFE_INTEGER;
      let maxSame = 0;
      for (const category of ACL_CATEGORIES) {
        if (applied.has(category)) continue;
        let on = 0;
        let off = 0;
        for (const s of specs) {
          if (!inCategory(s, category)) continue;
          if (temp.allowed.has(s)) on++;
          else off++;
        }
        const diff = additive ? off : on;
        const same = additive ? on : off;
        if (same > diff && (diff < minDiff || (diff === minDiff && same > maxSame))) {
          best = category;
          minDiff = diff;
          maxSame = same;
        }
      }
      if (best === null) break;
      fake.setCategory(best, additive);
      temp.setCategory(best, !additive);
      rules += `${additive ? '+@' : '-@'}${best} `;
      applied.add(best);
    }
    for (const spec of this.table) {
      rules = this.describeSingle(spec, fake, rules);
      if (spec.subcommands !== null) {
        for (const sub of spec.subcommands) rules = this.describeSingle(sub, fake, rules);
      }
      const first = this.firstArgs.get(spec);
      if (!this.allowed.has(spec) && first !== undefined) {
        for (const a of first) rules += `+${spec.fullName}|${a} `;
      }
    }
    return rules.slice(0, -1);
  }

  private describeSingle(spec: CommandSpec, fake: Selector, rules: string): string {
    const user = this.allowed.has(spec);
    if (user === fake.allowed.has(spec)) return rules;
    fake.changePerm(spec, user);
    return `${rules}${user ? '+' : '-'}${spec.fullName} `;
  }
}

function keyPatternText(k: KeyPattern): string {
  const prefix = k.flags === ALL ? '~' : k.flags === READ ? '%R~' : '%W~';
  return prefix + k.pattern.toString('latin1');
}

/** ACLStringHasSpaces: isspace or a 0 byte. */
export function hasSpaces(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0 || c === 0x20 || (c >= 0x09 && c <= 0x0d)) return true;
  }
  return false;
}
