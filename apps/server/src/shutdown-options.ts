/**
 * Redis 7's shutdown-on-sigint / shutdown-on-sigterm flags (`default`, or
 * any of save, nosave, now, force; resp's check refuses save with nosave).
 */
export interface ShutdownOptions {
  /** Checkpoint even with no `save` rules. */
  readonly save: boolean;
  /** No checkpoint: the log is flushed and synced, the next start replays its tail. */
  readonly nosave: boolean;
  /** Do not wait for commands in flight (Redis: for lagging replicas). */
  readonly now: boolean;
  /** A failed checkpoint does not fail the exit (exit code 0). */
  readonly force: boolean;
}

export const DEFAULT_SHUTDOWN: ShutdownOptions = {
  save: false,
  nosave: false,
  now: false,
  force: false,
};

/** The flags as CONFIG GET prints them (`default`, `save now`...). */
export function parseShutdownOptions(text: string): ShutdownOptions {
  const words = new Set(text.split(' '));
  return {
    save: words.has('save'),
    nosave: words.has('nosave'),
    now: words.has('now'),
    force: words.has('force'),
  };
}

export function formatShutdownOptions(o: ShutdownOptions): string {
  const words = (['save', 'nosave', 'now', 'force'] as const).filter((w) => o[w]);
  return words.length === 0 ? 'default' : words.join(' ');
}
