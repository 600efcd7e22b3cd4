/** How long an offset between the two clocks serves before it is read again. */
const REFRESH_MS = 100;

/**
 * Wall time (ms since the epoch) from a `performance.now()` reading the
 * dispatcher took anyway: a clock read costs ~40 ns on these machines, as
 * much as the rest of making a stream ID, and every command already reads
 * the monotonic clock once for its own timing. The offset between the two
 * clocks is read again once a reading is REFRESH_MS past the last read, so
 * a step of the wall clock (NTP) shows within that.
 */
export class WallClock {
  private offset = 0;
  private readAt = Number.NEGATIVE_INFINITY;

  /** The wall time, whole ms, at the monotonic reading `monotonic` (a recent one). */
  at(monotonic: number): number {
    if (monotonic - this.readAt > REFRESH_MS) {
      this.readAt = performance.now();
      this.offset = Date.now() - this.readAt;
    }
    return Math.floor(this.offset + monotonic);
  }
}
