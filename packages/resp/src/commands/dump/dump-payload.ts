import { type EncodableValue, encodeDumpPayload } from '@strata/rdb';
import type { ServerState } from '../../server/server-state.js';
import { readConfig } from '../server/config.js';

/**
 * A DUMP payload as Redis's createDumpPayload writes it (DUMP, MIGRATE):
 * strings over 20 bytes LZF-compressed only with `rdbcompression yes`
 * (rdbSaveRawString).
 */
export function dumpPayload(s: ServerState, value: EncodableValue): Buffer {
  return encodeDumpPayload(value, { compress: readConfig(s, 'rdbcompression') === 'yes' });
}
