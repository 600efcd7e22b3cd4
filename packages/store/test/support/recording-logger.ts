import type { PersistenceLogger } from '../../src/persistence/persistence-logger.js';

/** A logger that keeps each line (`message\n`, any level) in `lines`. */
export function recordingLogger(lines: string[]): PersistenceLogger {
  const keep = (m: string) => {
    lines.push(`${m}\n`);
  };
  return { debug: keep, verbose: keep, notice: keep, warning: keep };
}
