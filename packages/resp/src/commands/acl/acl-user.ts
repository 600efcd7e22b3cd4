import { createHash, timingSafeEqual } from 'node:crypto';
import type { CommandTable } from '../../server/command-table.js';
import { type RuleError, Selector } from './acl-selector.js';

/** A password as Redis keeps it: the SHA-256 of its bytes, hex (and the digest, to compare). */
interface Password {
  readonly hex: string;
  readonly digest: Buffer;
}

export function hashPassword(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** ACLCheckPasswordHash: 64 lowercase hex characters. */
function validHash(s: string): boolean {
  return /^[0-9a-f]{64}$/.test(s);
}

/**
 * What a new selector starts with, per server (Redis's acl-pubsub-default:
 * SELECTOR_FLAG_ALLCHANNELS or not), read when one is made.
 */
export interface SelectorDefaults {
  allChannels: boolean;
}

const RESET_CHANNELS: SelectorDefaults = { allChannels: false };

/**
 * An ACL user (Redis's `user`): on/off, nopass, its passwords (SHA-256),
 * its root selector and any others. Clients hold the same object, so a
 * change applies to them at once, as in Redis. `unrestricted` is kept
 * up to date by every change: the dispatcher reads only that for a user
 * allowed everything.
 */
export class User {
  enabled = false;
  nopass = false;
  /** Redis's sanitize-payload flags (kept, shown, and otherwise meaningless here). */
  sanitize: 'sanitize-payload' | 'skip-sanitize-payload' | null = null;
  passwords: Password[] = [];
  selectors: Selector[];
  /** Some selector allows every command, key and channel: nothing is checked. */
  unrestricted = false;

  constructor(
    readonly name: string,
    readonly table: CommandTable,
    private readonly defaults: SelectorDefaults = RESET_CHANNELS,
  ) {
    this.selectors = [this.newSelector(true)];
  }

  /** ACLCreateSelector: a selector's flags start with acl-pubsub-default's. */
  private newSelector(root: boolean): Selector {
    const s = new Selector(this.table, root);
    s.allChannels = this.defaults.allChannels;
    return s;
  }

  get root(): Selector {
    return this.selectors[0]!;
  }

  /** A new client of this user starts authenticated: nopass and on. */
  get autoAuthenticates(): boolean {
    return this.nopass && this.enabled;
  }

  /** A copy to stage changes on (ACL SETUSER applies all its rules, or none). */
  copy(name = this.name): User {
    const u = new User(name, this.table, this.defaults);
    u.copyFrom(this);
    return u;
  }

  /** ACLCopyUser: this user's rules become `src`'s; the name stays. */
  copyFrom(src: User): void {
    this.enabled = src.enabled;
    this.nopass = src.nopass;
    this.sanitize = src.sanitize;
    this.passwords = [...src.passwords];
    this.selectors = src.selectors.map((s) => s.copy());
    this.refresh();
  }

  private refresh(): void {
    this.unrestricted = this.selectors.some((s) => s.unrestricted);
  }

  /** ACLSetUser: one rule (latin1 text: bytes as given); null when it applied. */
  apply(op: string): RuleError | null {
    const r = this.applyRule(op);
    this.refresh();
    return r;
  }

  private applyRule(op: string): RuleError | null {
    if (op.length === 0) return null;
    const lower = op.toLowerCase();
    switch (lower) {
      case 'on':
        this.enabled = true;
        return null;
      case 'off':
        this.enabled = false;
        return null;
      case 'skip-sanitize-payload':
      case 'sanitize-payload':
        this.sanitize = lower;
        return null;
      case 'nopass':
        this.nopass = true;
        this.passwords = [];
        return null;
      case 'resetpass':
        this.nopass = false;
        this.passwords = [];
        return null;
      case 'clearselectors':
        this.selectors = [this.root];
        return null;
      case 'reset':
        this.applyRule('resetpass');
        this.root.apply('resetkeys');
        this.root.apply('resetchannels');
        if (this.defaults.allChannels) this.root.apply('allchannels');
        this.enabled = false;
        this.sanitize = 'sanitize-payload';
        this.selectors = [this.root];
        this.root.apply('-@all');
        return null;
    }
    const first = op[0];
    if (first === '>' || first === '#') {
      const bytes = Buffer.from(op.slice(1), 'latin1');
      const hex = first === '>' ? hashPassword(bytes) : op.slice(1);
      if (first === '#' && !validHash(hex)) return 'EBADMSG';
      if (!this.passwords.some((p) => p.hex === hex)) {
        this.passwords.push({ hex, digest: Buffer.from(hex, 'hex') });
      }
      this.nopass = false;
      return null;
    }
    if (first === '<' || first === '!') {
      const bytes = Buffer.from(op.slice(1), 'latin1');
      const hex = first === '<' ? hashPassword(bytes) : op.slice(1);
      if (first === '!' && !validHash(hex)) return 'EBADMSG';
      const at = this.passwords.findIndex((p) => p.hex === hex);
      if (at === -1) return 'ENODEV';
      this.passwords.splice(at, 1);
      return null;
    }
    if (first === '(' && op[op.length - 1] === ')') {
      const s = this.newSelector(false);
      for (const part of splitSelectorOps(op.slice(1, -1))) {
        const e = s.apply(part);
        if (e !== null) return e;
      }
      this.selectors.push(s);
      return null;
    }
    return this.root.apply(op);
  }

  /**
   * ACLCheckUserCredentials without the lookup: off users never match,
   * nopass ones always; else the password's digest against each one's,
   * in constant time (timingSafeEqual on two 32-byte digests).
   */
  checkPassword(password: Uint8Array): boolean {
    if (!this.enabled) return false;
    if (this.nopass) return true;
    return this.matchesPassword(password);
  }

  /** One of its passwords is `password` (compared in constant time). */
  matchesPassword(password: Uint8Array): boolean {
    if (this.passwords.length === 0) return false;
    const digest = createHash('sha256').update(password).digest();
    let ok = false;
    for (const p of this.passwords) if (timingSafeEqual(digest, p.digest)) ok = true;
    return ok;
  }

  /** ACLDescribeUser: flags, passwords, then each selector (the others in parentheses). */
  describe(): string {
    let out = '';
    for (const f of this.flagNames()) out += `${f} `;
    for (const p of this.passwords) out += `#${p.hex} `;
    for (const s of this.selectors) {
      out += s.root ? s.describe() : ` (${s.describe()})`;
    }
    return out;
  }

  /** Flags in Redis's order (ACLUserFlags). */
  flagNames(): string[] {
    const out = [this.enabled ? 'on' : 'off'];
    if (this.nopass) out.push('nopass');
    if (this.sanitize !== null) out.push(this.sanitize);
    return out;
  }
}

/**
 * sdssplitargs of a selector's inside, "(~x +get)": its rules one space
 * apart (quotes are Redis's too, kept simple: a rule in double quotes).
 */
function splitSelectorOps(text: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) out.push(m[1] ?? m[2]!);
  return out;
}

/** ACLSetUserStringError: what ACL SETUSER says of a rule that did not apply. */
export function ruleErrorText(e: RuleError): string {
  switch (e) {
    case 'ENOENT':
      return 'Unknown command or category name in ACL';
    case 'EINVAL':
      return 'Syntax error';
    case 'EEXIST':
      return "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns";
    case 'EISDIR':
      return "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels";
    case 'ENODEV':
      return 'The password you are trying to remove from the user does not exist';
    case 'EBADMSG':
      return 'The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters';
    case 'EALREADY':
      return 'Duplicate user found. A user can only be defined once in config files';
    case 'ECHILD':
      return 'Allowing first-arg of a subcommand is not supported';
  }
}

/**
 * ACLMergeSelectorArguments: a selector given over several arguments
 * ("(~x", "+get)") becomes one; null and the index of an unclosed one.
 */
export function mergeSelectorArgs(args: readonly string[]): string[] | { unmatched: number } {
  const out: string[] = [];
  let open = -1;
  let selector = '';
  for (let j = 0; j < args.length; j++) {
    const op = args[j]!;
    if (op[0] === '(' && op[op.length - 1] !== ')') {
      selector = op;
      open = j;
      continue;
    }
    if (open !== -1) {
      selector += ` ${op}`;
      if (op[op.length - 1] === ')') {
        open = -1;
        out.push(selector);
      }
      continue;
    }
    out.push(op);
  }
  if (open !== -1) return { unmatched: open };
  return out;
}
