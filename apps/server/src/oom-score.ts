import { readFileSync, writeFileSync } from 'node:fs';
import type { Logger } from './logger.js';
import { strerror } from './system-error.js';

/** Redis's oom-score-adj: `no`, `yes` (= relative), `relative` or `absolute`. */
export type OomScoreMode = 'no' | 'yes' | 'relative' | 'absolute';

const PROC_FILE = '/proc/self/oom_score_adj';

/**
 * Redis's setOOMScoreAdj for a master (the first of oom-score-adj-values):
 * the first time it takes control it remembers the score the process had,
 * adds it to the value when `relative`, clamps to -1000..1000 and writes
 * /proc/self/oom_score_adj; turned off, it writes the remembered score
 * back. A file that cannot be read or written is logged in Redis's words
 * and reported (false); the process goes on.
 */
export class OomScore {
  mode: OomScoreMode = 'no';
  /** oom-score-adj-values: master, replica, background child. */
  values: readonly [number, number, number] = [0, 200, 800];
  private adjusted = false;
  private base = 0;
  private live = false;

  constructor(
    private readonly logger: Logger,
    private readonly file = PROC_FILE,
  ) {}

  /** The server started: the score follows the settings from now on (a failure only logged, as Redis's start). */
  start(): void {
    this.live = true;
    this.apply();
  }

  /**
   * Writes the score the settings ask for (if any); false: it could not.
   * Before start the settings are only kept (the config file's values).
   */
  apply(): boolean {
    if (!this.live) return true;
    let value: number;
    if (this.mode !== 'no') {
      if (!this.adjusted) {
        try {
          this.base = Number.parseInt(readFileSync(this.file, 'latin1'), 10) || 0;
        } catch (e) {
          this.logger.warning(`Unable to read oom_score_adj: ${strerror(e)}`);
          return false;
        }
        this.adjusted = true;
      }
      value = this.values[0];
      if (this.mode !== 'absolute') value += this.base;
      value = Math.max(-1000, Math.min(1000, value));
    } else if (this.adjusted) {
      this.adjusted = false;
      value = this.base;
    } else return true;
    try {
      writeFileSync(this.file, `${value}\n`);
    } catch (e) {
      this.logger.warning(`Unable to write oom_score_adj: ${strerror(e)}`);
      return false;
    }
    return true;
  }
}
