/**
 * The stores' clock with the AOF on (hlog's `clock` option; the collection
 * cache follows its store's): what every expiry decision reads, and what
 * each AOF record is stamped with (`#MS:` annotations), so that replay sees
 * each command at the time it ran live.
 *
 * Live, it is Date.now() read once per event-loop turn (Redis caches its
 * command time the same way): a command's expiry checks and its AOF stamp
 * are the same millisecond, never one on each side of a key's expiry.
 * While the AOF replays, it is the stamp of the command being applied: a
 * key that was alive when a command ran live is alive when it replays (an
 * INCR keeps the TTL it kept), and a key that had expired is missing then
 * too; once replay ends, what expired since is gone.
 */
export class AofClock {
  private cached = -1;
  private replaying: number | null = null;
  private readonly expire = () => {
    this.cached = -1;
  };

  /** The time in ms since the epoch (a bound function: pass it as a clock). */
  readonly now = (): number => {
    if (this.replaying !== null) return this.replaying;
    if (this.cached < 0) {
      this.cached = Date.now();
      setImmediate(this.expire);
    }
    return this.cached;
  };

  /** Replay: the time the next command ran at (its AOF stamp; undefined: unstamped, the real time). */
  replayAt(time: number | undefined): void {
    this.replaying = time ?? null;
  }

  /** Replay ended: the real time again. */
  live(): void {
    this.replaying = null;
    this.cached = -1;
  }
}
