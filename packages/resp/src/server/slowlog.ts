/** Redis's SLOWLOG_ENTRY_MAX_ARGC and SLOWLOG_ENTRY_MAX_STRING. */
const MAX_ARGC = 32;
const MAX_STRING = 128;

/** What Redis shows in place of a redacted argument (AUTH's password...). */
export const REDACTED = Buffer.from('(redacted)');

/** One SLOWLOG GET entry, as Redis's slowlogEntry. */
export interface SlowlogEntry {
  readonly id: number;
  /** Unix seconds when it was logged. */
  readonly time: number;
  /** Microseconds the command took. */
  readonly duration: number;
  readonly args: readonly Buffer[];
  /** The client's `ip:port` (`?:0` for a script's commands). */
  readonly peer: string;
  readonly name: Buffer;
}

const EMPTY = Buffer.alloc(0);

/**
 * The slow log (Redis's slowlog.c): commands that took at least
 * `slowlog-log-slower-than` microseconds, newest first, at most
 * `slowlog-max-len` of them (trimmed when an entry is added, as Redis).
 */
export class SlowLog {
  /** Oldest first, from `head` on (trimming moves `head`, compacting now and then). */
  private entries: SlowlogEntry[] = [];
  private head = 0;
  private nextId = 0;
  /** slowlog-log-slower-than in µs; +Infinity when negative (off), so the hot path compares once. */
  slowerThan = 10_000;
  maxLen = 128;

  setSlowerThan(us: number): void {
    this.slowerThan = us < 0 ? Number.POSITIVE_INFINITY : us;
  }

  get length(): number {
    return this.entries.length - this.head;
  }

  /**
   * Adds a command that was slow: its arguments past the 32nd and their
   * bytes past the 128th summed up as Redis does, `redacted` ones replaced.
   */
  push(
    argv: readonly Buffer[],
    redacted: readonly number[] | null,
    duration: number,
    peer: string,
    name: Buffer | null,
  ): void {
    const argc = Math.min(argv.length, MAX_ARGC);
    const args: Buffer[] = new Array<Buffer>(argc);
    for (let j = 0; j < argc; j++) {
      if (argc !== argv.length && j === argc - 1) {
        args[j] = Buffer.from(`... (${argv.length - argc + 1} more arguments)`);
      } else if (redacted?.includes(j)) {
        args[j] = REDACTED;
      } else {
        const a = argv[j]!;
        // Copies: the parser reuses the request's buffers.
        args[j] =
          a.length > MAX_STRING
            ? Buffer.concat([
                a.subarray(0, MAX_STRING),
                Buffer.from(`... (${a.length - MAX_STRING} more bytes)`),
              ])
            : Buffer.from(a);
      }
    }
    this.entries.push({
      id: this.nextId++,
      time: Math.floor(Date.now() / 1000),
      duration,
      args,
      peer,
      name: name === null ? EMPTY : Buffer.from(name),
    });
    while (this.length > this.maxLen) this.head++;
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  /** The `count` newest entries, newest first. */
  newest(count: number): SlowlogEntry[] {
    const out: SlowlogEntry[] = [];
    for (let i = this.entries.length - 1; i >= this.head && out.length < count; i--) {
      out.push(this.entries[i]!);
    }
    return out;
  }

  /** SLOWLOG RESET: the entries go, the ids go on. */
  reset(): void {
    this.entries = [];
    this.head = 0;
  }
}
