import type { Logger } from './logger.js';

export interface Shutdown {
  /** The signal picks the options (shutdown-on-sigint, shutdown-on-sigterm). */
  shutdown(signal: NodeJS.Signals): Promise<number>;
}

/**
 * SIGINT/SIGTERM start a clean shutdown and exit with its code; another
 * signal during it exits at once (Redis: "You insist... exiting now.").
 * Returns a function that removes the handlers.
 */
export function handleSignals(
  server: Shutdown,
  logger: Logger,
  exit: (code: number) => void = (code) => process.exit(code),
): () => void {
  let shuttingDown = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      logger.warning('You insist... exiting now.');
      exit(1);
      return;
    }
    shuttingDown = true;
    logger.signal(`Received ${signal} scheduling shutdown...`);
    server.shutdown(signal).then(exit, (e: unknown) => {
      logger.warning(`Shutdown failed: ${String(e)}`);
      exit(1);
    });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
