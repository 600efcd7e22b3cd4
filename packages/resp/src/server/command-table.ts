import type { Client } from './client.js';
import type { PropagationRule } from './command-log.js';

/** What a handler returns: nothing when it replied already, a promise when it went to disk. */
export type CommandResult = undefined | Promise<void>;

/**
 * Runs one command. It writes its reply (exactly one) to `client.reply`,
 * synchronously or when its promise settles; it throws (or rejects with) a
 * CommandError for an error reply. `argv[0]` is the command name (for a
 * subcommand, `argv[1]` its name).
 */
export type CommandHandler = (client: Client, argv: Buffer[]) => CommandResult;

/** Command flags as Redis reports them in COMMAND INFO. */
export type CommandFlagName =
  | 'write'
  | 'readonly'
  | 'denyoom'
  | 'admin'
  | 'pubsub'
  | 'noscript'
  | 'blocking'
  | 'loading'
  | 'stale'
  | 'skip_monitor'
  | 'skip_slowlog'
  | 'fast'
  | 'no_auth'
  | 'may_replicate'
  | 'no_mandatory_keys'
  | 'no_multi'
  | 'allow_busy'
  | 'movablekeys'
  /** RESTORE-ASKING: a cluster's ASKING state is honoured (no cluster here: a flag only). */
  | 'asking';

/** The flags as bits, for the checks on the dispatch path. */
export const CommandFlag = {
  write: 1 << 0,
  readonly: 1 << 1,
  denyoom: 1 << 2,
  admin: 1 << 3,
  pubsub: 1 << 4,
  noscript: 1 << 5,
  blocking: 1 << 6,
  loading: 1 << 7,
  stale: 1 << 8,
  skip_monitor: 1 << 9,
  skip_slowlog: 1 << 10,
  fast: 1 << 11,
  no_auth: 1 << 12,
  may_replicate: 1 << 13,
  no_mandatory_keys: 1 << 14,
  no_multi: 1 << 15,
  allow_busy: 1 << 16,
  movablekeys: 1 << 17,
  asking: 1 << 18,
} as const satisfies Record<CommandFlagName, number>;

/**
 * ACL categories in Redis's own order (ACLCommandCategories in acl.c):
 * COMMAND INFO lists a command's categories in this order.
 */
export const ACL_CATEGORIES = [
  'keyspace',
  'read',
  'write',
  'set',
  'sortedset',
  'list',
  'hash',
  'string',
  'bitmap',
  'hyperloglog',
  'geo',
  'stream',
  'pubsub',
  'admin',
  'fast',
  'slow',
  'blocking',
  'dangerous',
  'connection',
  'transaction',
  'scripting',
] as const;

export type AclCategory = (typeof ACL_CATEGORIES)[number];

/**
 * Commands Redis 7.0 flags may_replicate (they may write or propagate
 * without the write flag: PUBLISH propagates, PFCOUNT may rewrite its
 * cache, a script may write). COMMAND INFO hides the flag, and these
 * definitions do not carry it; their families may add it and drop them here.
 */
const REDIS_MAY_REPLICATE: ReadonlySet<string> = new Set([
  'publish',
  'spublish',
  'pfcount',
  'eval',
  'evalsha',
  'fcall',
]);

/**
 * One key spec as COMMAND INFO prints it: where the search for keys begins
 * (an argument index, or unknown) and how keys are found from there (a
 * range: last key relative to the first, step, limit; or unknown).
 */
export interface KeySpec {
  readonly notes?: string;
  readonly flags: readonly string[];
  /** An index, unknown, or a keyword searched for from an index (GEORADIUS's STORE). */
  readonly beginIndex:
    | number
    | 'unknown'
    | { readonly keyword: string; readonly startFrom: number };
  readonly findRange:
    | { readonly lastKey: number; readonly keyStep: number; readonly limit: number }
    | 'unknown';
}

/** A command as the command files declare it. */
export interface CommandDefinition {
  /** Lower case, as COMMAND reports it. For a subcommand, its own name (`setname`). */
  readonly name: string;
  /** Redis's convention: N = exactly N arguments (name included), -N = at least N. */
  readonly arity: number;
  readonly flags: readonly CommandFlagName[];
  /** Position of the first key (0 = no keys), the last (-1 = the last argument), the step. */
  readonly firstKey: number;
  readonly lastKey: number;
  readonly step: number;
  /**
   * Categories beyond those the flags imply (write -> @write, readonly ->
   * @read, fast -> @fast else @slow, admin -> @admin @dangerous...).
   */
  readonly acl: readonly AclCategory[];
  /**
   * Keys that follow a keyword rather than fixed positions (XREAD's
   * `STREAMS k1 k2 id1 id2`): searched for from argument `startFrom`, the
   * keys are the first half of what follows it. The legacy range is then
   * 0 0 0 and the flags carry `movablekeys`.
   */
  readonly keywordKeys?: { readonly keyword: string; readonly startFrom: number };
  /**
   * The key positions of a call by the command's own rule (Redis's
   * getkeys_proc: SORT's STORE destination); the flags then carry
   * `movablekeys`. What dispatch checks and COMMAND GETKEYS answers.
   */
  readonly keysOf?: (argv: readonly Uint8Array[]) => number[];
  /**
   * The keys a run of this write command may change, when not all of its
   * keys (SORT: only its STORE destination): WATCH marks these.
   */
  readonly changedKeysOf?: (argv: readonly Uint8Array[]) => number[];
  /**
   * Whether this call may write, when its arguments decide it (Redis's
   * getCommandFlags: a script's declared flags, a function's); CLIENT PAUSE
   * WRITE holds it only then. Without it, the command's flags decide.
   */
  readonly mayWriteWith?: (c: Client, argv: readonly Buffer[]) => boolean;
  /** COMMAND INFO's key specs when the range and keyFlags cannot say them (SORT's unknown ones). */
  readonly keySpecs?: readonly KeySpec[];
  /** Key-spec flags for COMMAND INFO/DOCS (`RO access`, `RW update`, `RM delete`...). */
  readonly keyFlags?: readonly string[];
  /** A note on the key spec (COMMAND INFO shows it, e.g. SET's GET option). */
  readonly keyNotes?: string;
  /** Command tips (`nondeterministic_output`, `request_policy:...`). */
  readonly tips?: readonly string[];
  readonly summary: string;
  readonly since: string;
  readonly group: string;
  readonly complexity: string;
  /** Absent for a container (CLIENT, COMMAND): it dispatches to `subcommands`. */
  readonly handler?: CommandHandler;
  readonly subcommands?: readonly CommandDefinition[];
  /**
   * A read-only pass over a whole log (DBSIZE, KEYS, SCAN, INFO keyspace...):
   * while it runs it holds its own connection only. It is not counted among
   * the disk operations EXEC and RENAME wait for (they would hold every
   * client until it ends); FLUSHDB waits for it through `Keyspace.track`.
   */
  readonly wholeLog?: boolean;
  /**
   * The handler keeps nothing of its arguments array once it returned with
   * no promise (GET, SET): the parser may reuse the array.
   */
  readonly argvFree?: boolean;
  /**
   * A pipelined run of this command with exactly this many arguments (name
   * included) may be parsed ahead of running and its keys (the first key)
   * prefetched together: only for commands that change nothing the parser
   * depends on (authentication, proto-max-bulk-len). GET: 2, SET: 3.
   */
  readonly parseAhead?: number;
  /**
   * One-time setup the command needs that Redis does at start (a script's
   * Lua VM, made here at the first script): run before the command's clock
   * starts, so SLOWLOG, LATENCY and INFO commandstats time the command as
   * Redis does. True when it did work now.
   */
  readonly setup?: (c: Client) => boolean;
  /** Runs at once inside MULTI instead of being queued (Redis's EXEC, DISCARD, MULTI, WATCH, QUIT, RESET). */
  readonly runsInMulti?: boolean;
  /**
   * How its key lookups treat the keys' access clock (OBJECT IDLETIME/FREQ):
   * `none`, Redis's LOOKUP_NOTOUCH lookups (OBJECT, TYPE, EXISTS, TTL...);
   * `always`, even for a CLIENT NO-TOUCH client (TOUCH). Default: they
   * touch unless the client is NO-TOUCH.
   */
  readonly touch?: 'none' | 'always';
  /** Runs the MULTI queue (EXEC): refused while the disk fails when the queue writes, and aborts it. */
  readonly runsTransaction?: boolean;
  /** Refused like a write while the disk fails, though it writes nothing (PING: monitoring notices). */
  readonly refusedOnWriteError?: boolean;
  /**
   * Runs on a RESP2 connection in Redis's pub/sub context (subscribed to a
   * channel, pattern or shard channel): the (P|S)(UN)SUBSCRIBE commands,
   * PING, QUIT and RESET. Every other command is refused there.
   */
  readonly allowedWhileSubscribed?: boolean;
  /**
   * A write command's replay form for the command log, from its arguments
   * and its reply (SET EX → SET PXAT, SPOP → SREM, nothing for a DEL of
   * nothing...). Absent: the command is logged as it came. Not read after
   * an error reply, nor when the handler chose its forms with
   * `client.propagate`.
   */
  readonly replay?: PropagationRule;
}

/** A command ready for dispatch. */
export class CommandSpec {
  readonly name: string;
  /** `get`, or `client|setname` for a subcommand: what arity errors and INFO name. */
  readonly fullName: string;
  readonly arity: number;
  readonly flags: number;
  readonly flagNames: readonly CommandFlagName[];
  readonly firstKey: number;
  readonly lastKey: number;
  readonly step: number;
  readonly acl: readonly AclCategory[];
  readonly keyFlags: readonly string[];
  readonly definition: CommandDefinition;
  readonly handler: CommandHandler | null;
  readonly subcommands: CommandTable | null;
  readonly parent: CommandSpec | null;
  readonly wholeLog: boolean;
  /** See CommandDefinition: flags the dispatcher reads on the hot path, copied here. */
  readonly argvFree: boolean;
  /** From CommandDefinition.touch: 0 none, 1 unless NO-TOUCH, 2 always. */
  readonly touch: 0 | 1 | 2;
  readonly runsInMulti: boolean;
  /** See CommandDefinition.setup. */
  readonly setup: ((c: Client) => boolean) | null;
  readonly runsTransaction: boolean;
  readonly refusedOnWriteError: boolean;
  readonly allowedWhileSubscribed: boolean;
  /** See CommandDefinition: read on the write path, so a field here. */
  readonly replay: PropagationRule | null;
  /**
   * Redis's is_may_replicate_command: flagged `write` or `may_replicate`,
   * or one Redis flags so whose definition here does not (REDIS_MAY_REPLICATE).
   * CLIENT PAUSE WRITE holds these; a monitoring client may not run them.
   */
  readonly mayReplicate: boolean;
  /**
   * INFO commandstats, as Redis counts them: calls that ran, their time
   * (µs, with fractions: the sum is exact), calls refused before running
   * (arity, NOAUTH, MISCONF...) and calls whose reply had an error.
   */
  calls = 0;
  usec = 0;
  rejectedCalls = 0;
  failedCalls = 0;
  /** LATENCY HISTOGRAM: calls per bucket (latency-histogram.ts), made at the first call. */
  histogram: Float64Array | null = null;

  constructor(def: CommandDefinition, parent: CommandSpec | null = null) {
    if (def.name !== def.name.toLowerCase()) throw new TypeError(`command ${def.name}: lower case`);
    this.name = def.name;
    this.fullName = parent === null ? def.name : `${parent.name}|${def.name}`;
    this.arity = def.arity;
    this.flagNames = def.flags;
    let bits = 0;
    for (const f of def.flags) bits |= CommandFlag[f];
    this.flags = bits;
    this.firstKey = def.firstKey;
    this.lastKey = def.lastKey;
    this.step = def.step;
    this.acl = implicitCategories(def);
    this.keyFlags = def.keyFlags ?? defaultKeyFlags(bits);
    this.definition = def;
    this.parent = parent;
    this.wholeLog = def.wholeLog ?? false;
    this.argvFree = def.argvFree ?? false;
    this.touch = def.touch === 'none' ? 0 : def.touch === 'always' ? 2 : 1;
    this.runsInMulti = def.runsInMulti ?? false;
    this.setup = def.setup ?? null;
    this.runsTransaction = def.runsTransaction ?? false;
    this.refusedOnWriteError = def.refusedOnWriteError ?? false;
    this.allowedWhileSubscribed = def.allowedWhileSubscribed ?? false;
    this.replay = def.replay ?? null;
    this.mayReplicate =
      (bits & (CommandFlag.write | CommandFlag.may_replicate)) !== 0 ||
      REDIS_MAY_REPLICATE.has(this.fullName);
    this.handler = def.handler ?? null;
    this.subcommands =
      def.subcommands === undefined
        ? null
        : new CommandTable(def.subcommands.map((s) => new CommandSpec(s, this)));
    if (this.handler === null && this.subcommands === null) {
      throw new TypeError(`command ${def.name}: a handler or subcommands`);
    }
  }

  /** Redis's arity rule. */
  arityOk(argc: number): boolean {
    return this.arity >= 0 ? argc === this.arity : argc >= -this.arity;
  }

  has(flag: number): boolean {
    return (this.flags & flag) !== 0;
  }

  /**
   * The key positions of a call: after the definition's keyword (see
   * `keywordKeys`), by its own rule (`keysOf`), else first..last by step
   * (Redis's legacy range; a negative last counts from the end).
   */
  keyIndexes(argv: readonly Uint8Array[]): number[] {
    const kw = this.definition.keywordKeys;
    if (kw !== undefined) return keywordKeyIndexes(argv, kw.keyword, kw.startFrom);
    const own = this.definition.keysOf;
    if (own !== undefined) return own(argv);
    return this.rangeKeyIndexes(argv.length);
  }

  /** The keys a write command's run may change (WATCH): `changedKeysOf`, else every key. */
  changedKeyIndexes(argv: readonly Uint8Array[]): number[] {
    const own = this.definition.changedKeysOf;
    return own !== undefined ? own(argv) : this.keyIndexes(argv);
  }

  private rangeKeyIndexes(argc: number): number[] {
    if (this.firstKey <= 0) return [];
    const last = this.lastKey < 0 ? argc + this.lastKey : this.lastKey;
    const out: number[] = [];
    for (let i = this.firstKey; i <= last && i < argc; i += this.step) out.push(i);
    return out;
  }
}

/** The first half of the arguments after `keyword` (case-insensitive), searched from `from`. */
function keywordKeyIndexes(argv: readonly Uint8Array[], keyword: string, from: number): number[] {
  for (let i = from; i < argv.length; i++) {
    if (Buffer.from(argv[i]!).toString('latin1').toUpperCase() !== keyword) continue;
    const n = Math.floor((argv.length - i - 1) / 2);
    const out: number[] = [];
    for (let k = 1; k <= n; k++) out.push(i + k);
    return out;
  }
  return [];
}

function implicitCategories(def: CommandDefinition): AclCategory[] {
  const set = new Set<AclCategory>(def.acl);
  const f = new Set(def.flags);
  if (f.has('write')) set.add('write');
  if (f.has('readonly') && !set.has('scripting')) set.add('read');
  if (f.has('admin')) {
    set.add('admin');
    set.add('dangerous');
  }
  if (f.has('pubsub')) set.add('pubsub');
  if (f.has('blocking')) set.add('blocking');
  if (f.has('fast')) set.add('fast');
  else set.add('slow');
  return ACL_CATEGORIES.filter((c) => set.has(c));
}

function defaultKeyFlags(flags: number): string[] {
  if ((flags & CommandFlag.write) !== 0) return ['RW', 'update'];
  return ['RO', 'access'];
}

const lower = (b: number): number => (b >= 0x41 && b <= 0x5a ? b | 0x20 : b);

/**
 * Commands by name, looked up straight from the request's bytes, case
 * insensitively, with no string made: a bucket by length and first letter,
 * then a byte compare. Dispatch runs this once per command.
 */
export class CommandTable {
  /** Specs by `bucketKey` (an array, not a Map: dispatch looks here once per command). */
  private readonly buckets: (CommandSpec[] | undefined)[] = [];
  private readonly byName = new Map<string, CommandSpec>();

  constructor(specs: Iterable<CommandSpec> = []) {
    for (const s of specs) this.add(s);
  }

  static from(defs: Iterable<CommandDefinition>): CommandTable {
    const t = new CommandTable();
    for (const d of defs) t.add(new CommandSpec(d));
    return t;
  }

  add(spec: CommandSpec): void {
    if (this.byName.has(spec.name)) throw new TypeError(`command ${spec.name} twice`);
    this.byName.set(spec.name, spec);
    const key = bucketKey(spec.name.length, spec.name.charCodeAt(0));
    while (this.buckets.length <= key) this.buckets.push(undefined);
    const list = this.buckets[key];
    if (list === undefined) this.buckets[key] = [spec];
    else list.push(spec);
  }

  /** The command named by `name` (any case), or undefined. */
  lookup(name: Uint8Array): CommandSpec | undefined {
    const n = name.length;
    if (n === 0) return undefined;
    const key = bucketKey(n, lower(name[0]!));
    if (key >= this.buckets.length) return undefined;
    const list = this.buckets[key];
    if (list === undefined) return undefined;
    outer: for (const spec of list) {
      const s = spec.name;
      for (let i = 1; i < n; i++) {
        if (lower(name[i]!) !== s.charCodeAt(i)) continue outer;
      }
      return spec;
    }
    return undefined;
  }

  get(name: string): CommandSpec | undefined {
    return this.byName.get(name.toLowerCase());
  }

  get size(): number {
    return this.byName.size;
  }

  [Symbol.iterator](): IterableIterator<CommandSpec> {
    return this.byName.values();
  }
}

function bucketKey(length: number, first: number): number {
  return length * 256 + first;
}
