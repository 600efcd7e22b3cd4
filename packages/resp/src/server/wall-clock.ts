/**
 * Wall time (ms since the epoch) from a `performance.now()` reading the
 * dispatcher took anyway: a clock read costs ~40 ns on these machines, as
 * much as the rest of making a stream ID, and every command already reads
 * the monotonic clock once for its own timing. The offset between the two
 * clocks is re-read on the server's tick, so a step of the wall clock (NTP)
 * shows within a tick.
 */
export class WallClock {
  private offset = Date.now() - performance.now();

  /** Re-reads the offset (the server's tick). */
  refresh(): void {
    this.offset = Date.now() - performance.now();
  }

  /** The wall time, whole ms, at the monotonic reading `monotonic`. */
  at(monotonic: number): number {
    return Math.floor(this.offset + monotonic);
  }
}
