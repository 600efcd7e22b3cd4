/**
 * Resident memory helpers for scenarios that report memory use.
 * `process.resourceUsage().maxRSS` is the peak of the whole process and
 * cannot be reset; to measure one phase use `startRssSampler()`.
 */

const MiB = 1024 * 1024;

/** The process's peak resident set size so far, in bytes. */
export function peakRssBytes(): number {
  // maxRSS is in kilobytes.
  return process.resourceUsage().maxRSS * 1024;
}

/** The current resident set size, in bytes. */
export function rssBytes(): number {
  return process.memoryUsage.rss();
}

export function bytesToMiB(bytes: number): number {
  return bytes / MiB;
}

export interface RssSampler {
  /** Stops sampling and returns the highest RSS seen, in bytes. */
  stop(): number;
}

/**
 * Samples the RSS every `intervalMs` until `stop()`: the peak of one phase
 * (the event loop must turn for samples to be taken; the first and last
 * samples are taken at start and stop).
 */
export function startRssSampler(intervalMs = 10): RssSampler {
  let peak = rssBytes();
  const timer = setInterval(() => {
    const now = rssBytes();
    if (now > peak) peak = now;
  }, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      const now = rssBytes();
      return Math.max(now, peak);
    },
  };
}
