/**
 * How the checkpoints (strata's RDB saves) went, for INFO persistence's
 * rdb_* fields: Redis's meaning, a checkpoint round of one database for a
 * bgsave. `rdb_last_bgsave_status` is err from a failed checkpoint until
 * one succeeds, whatever failed (the log's pages, the index file, the AOF
 * rotation before it).
 */
export class SaveStatus {
  /** Unix seconds of the last successful checkpoint (Redis: lastsave; start time before any). */
  lastSaveTime = Math.floor(Date.now() / 1000);
  lastStatus: 'ok' | 'err' = 'ok';
  /** Seconds the last checkpoint took, -1 before any. */
  lastDurationSec = -1;
  saves = 0;
  /** performance.now() when the last checkpoint ended (Redis's lastbgsave_try). */
  lastTryAt = 0;
  /** Called when `lastStatus` changes (writes stop or resume: stop-writes-on-bgsave-error). */
  onChange: (() => void) | null = null;
  private running = 0;
  private runningSince = 0;

  /** A checkpoint starts: call the returned function with its outcome. */
  begin(): (ok: boolean) => void {
    const started = performance.now();
    if (this.running++ === 0) this.runningSince = started;
    return (ok) => {
      this.running--;
      this.lastTryAt = performance.now();
      this.lastDurationSec = Math.round((performance.now() - started) / 1000);
      const before = this.lastStatus;
      this.lastStatus = ok ? 'ok' : 'err';
      if (ok) {
        this.saves++;
        this.lastSaveTime = Math.floor(Date.now() / 1000);
      }
      if (this.lastStatus !== before) this.onChange?.();
    };
  }

  /**
   * INFO persistence's lines after `loading`/`async_loading` and before the
   * aof_* ones, in Redis 7's names and order: no fork, so the copy-on-write
   * fields are 0; `changes`: writes since the last checkpoint.
   */
  infoLines(changes: number): string[] {
    const inProgress = this.running > 0;
    return [
      'current_cow_peak:0',
      'current_cow_size:0',
      'current_cow_size_age:0',
      'current_fork_perc:0.00',
      'current_save_keys_processed:0',
      'current_save_keys_total:0',
      `rdb_changes_since_last_save:${changes}`,
      `rdb_bgsave_in_progress:${inProgress ? 1 : 0}`,
      `rdb_last_save_time:${this.lastSaveTime}`,
      `rdb_last_bgsave_status:${this.lastStatus}`,
      `rdb_last_bgsave_time_sec:${this.lastDurationSec}`,
      `rdb_current_bgsave_time_sec:${inProgress ? Math.round((performance.now() - this.runningSince) / 1000) : -1}`,
      `rdb_saves:${this.saves}`,
      'rdb_last_cow_size:0',
    ];
  }
}
