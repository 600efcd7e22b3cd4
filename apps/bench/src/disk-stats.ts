import { readFileSync, statSync } from 'node:fs';

/** A block device's read counters. */
export interface DiskReadCount {
  readonly reads: number;
  readonly bytes: number;
}

/**
 * Reads completed by the block device that holds a path, from
 * /proc/diskstats (Linux): the scenarios that read the disk count the
 * device reads behind their operations with it. The counter is the whole
 * device's: other processes' reads land in it too.
 */
export class DiskReads {
  private constructor(
    private readonly major: number,
    private readonly minor: number,
  ) {}

  /** The counter of the device holding `path`, or null (not Linux, no such line). */
  static of(path: string): DiskReads | null {
    try {
      const dev = statSync(path).dev;
      // Linux's dev_t: major in bits 8-19, minor in bits 0-7 and 20-31.
      const major = (dev >>> 8) & 0xfff;
      const minor = (dev & 0xff) | ((dev >>> 12) & 0xfff00);
      const d = new DiskReads(major, minor);
      return Number.isFinite(d.count().reads) ? d : null;
    } catch {
      return null;
    }
  }

  /**
   * Reads completed so far and the bytes they read (fields 4 and 6 of the
   * device's line: a request of any size counts once, so the bytes tell a
   * 4 KiB read from a read-ahead's 128 KiB); NaN if it cannot be read.
   */
  count(): DiskReadCount {
    try {
      for (const line of readFileSync('/proc/diskstats', 'latin1').split('\n')) {
        const f = line.trim().split(/\s+/);
        if (Number(f[0]) === this.major && Number(f[1]) === this.minor) {
          return { reads: Number(f[3]), bytes: Number(f[5]) * 512 };
        }
      }
    } catch {
      // No /proc: not Linux.
    }
    return { reads: Number.NaN, bytes: Number.NaN };
  }
}
