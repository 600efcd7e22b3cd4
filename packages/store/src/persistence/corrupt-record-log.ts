import type { DamageLog } from '@strata/hlog';
import { printableKey } from '@strata/resp';
import type { PersistenceLogger } from './persistence-logger.js';

/** What the log of a damaged store needs of it (hlog's Store). */
export interface DamageSource {
  readonly damage: Pick<DamageLog, 'onCorrupt'>;
}

/**
 * Logs damage met on a database's device once per address (hlog's
 * DamageLog reports each address once): a record that failed verification
 * when read, naming the key (up to 128 bytes, escaped) and what is wrong, or
 * a page a scan or compaction skipped. The commands that met it answered
 * an error; INFO's stats section counts every read.
 */
export function logCorruptRecords(
  store: DamageSource,
  name: string,
  dir: string,
  logger: PersistenceLogger,
): void {
  const previous = store.damage.onCorrupt;
  store.damage.onCorrupt = (address, what, key) => {
    previous?.(address, what, key);
    logger.warning(
      key === null
        ? `${name}: damaged page at log address ${address} in ${dir} skipped: ${what}`
        : `${name}: corrupt record for key '${printableKey(key, 128)}' at log address ${address} in ${dir}: ${what}. ` +
            'Reads of the key answer an error until it is deleted or overwritten.',
    );
  };
}
