/** What TurnWrites needs of a socket: Node's `net.Socket` (a Writable) is one. */
export interface CorkableOutput {
  readonly writableCorked: number;
  cork(): void;
  uncork(): void;
}

/**
 * The replies of one event-loop turn leave together, after every
 * connection that was readable in it has run its commands: Redis writes
 * all clients' replies in `beforeSleep` the same way. A client process
 * waiting in its poll is woken by the first write of the burst and is
 * still running when the next ones land; written one connection at a time,
 * each write found it asleep again and paid a wake-up (on a 2-core VM a
 * third of the server's CPU went to those, and P16 throughput rose ~1.45x
 * with the burst). A socket written in a turn is corked until the turn's
 * check phase (`setImmediate`, right after the poll phase that ran the
 * reads); its writes keep their order, `writableLength` and `write()`'s
 * backpressure still count them, and `end()` sends them first. Before
 * they leave, `beforeRelease` runs: the command log writes the commands
 * these replies acknowledge (Redis's AOF write, also in `beforeSleep`).
 */
export class TurnWrites {
  private readonly held: CorkableOutput[] = [];

  constructor(
    /** Runs before a turn's writes leave: the command log writes what they acknowledge. */
    private readonly beforeRelease: () => void = () => {},
  ) {}

  private readonly release = (): void => {
    this.beforeRelease();
    const held = this.held;
    // A socket held during the loop (none is: writes complete later) is released by it too.
    for (let i = 0; i < held.length; i++) {
      const out = held[i]!;
      // A socket ended (end() uncorks) or destroyed meanwhile has nothing held.
      if (out.writableCorked > 0) out.uncork();
    }
    held.length = 0;
  };

  /** Holds what is written to `out` until the end of this turn's poll phase. */
  hold(out: CorkableOutput): void {
    if (out.writableCorked > 0) return;
    out.cork();
    if (this.held.push(out) === 1) setImmediate(this.release);
  }
}
