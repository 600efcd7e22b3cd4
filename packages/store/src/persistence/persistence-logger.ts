/**
 * Where the databases and the AOF say what they did (opens, recoveries,
 * checkpoints, failures), by Redis's log levels. strata-server's Logger
 * writes Redis-style lines; the embedded store passes its `log` option.
 */
export interface PersistenceLogger {
  debug(message: string): void;
  verbose(message: string): void;
  notice(message: string): void;
  warning(message: string): void;
}

/** A logger that drops every line. */
export const SILENT_LOGGER: PersistenceLogger = {
  debug: () => undefined,
  verbose: () => undefined,
  notice: () => undefined,
  warning: () => undefined,
};

/** Seconds with Redis's three decimals: `0.012`. */
export function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}
