/**
 * Redis's encoding thresholds (hash-max-listpack-*, set-max-intset-entries,
 * set-max-listpack-*, zset-max-listpack-*, list-max-listpack-size): when a
 * collection changes from its compact encoding to the large one, and so
 * what OBJECT ENCODING reports. One set per process, as Redis has one per
 * server: CONFIG SET changes them for every database (the resp server's
 * config binds them). A value keeps its encoding until a write or a load
 * looks again, as in Redis.
 */
export interface EncodingLimits {
  hashMaxListpackEntries: number;
  hashMaxListpackValue: number;
  setMaxIntsetEntries: number;
  setMaxListpackEntries: number;
  setMaxListpackValue: number;
  zsetMaxListpackEntries: number;
  zsetMaxListpackValue: number;
  /** list-max-listpack-size: entries when positive, -1..-5 for 4..64 KiB of listpack bytes. */
  listMaxListpackSize: number;
}

export const DEFAULT_ENCODING_LIMITS: Readonly<EncodingLimits> = {
  hashMaxListpackEntries: 512,
  hashMaxListpackValue: 64,
  setMaxIntsetEntries: 512,
  setMaxListpackEntries: 128,
  setMaxListpackValue: 64,
  zsetMaxListpackEntries: 128,
  zsetMaxListpackValue: 64,
  listMaxListpackSize: -2,
};

/** The thresholds in force (read on every write that may convert). */
export const encodingLimits: EncodingLimits = { ...DEFAULT_ENCODING_LIMITS };

/** Changes some thresholds; `setEncodingLimits(DEFAULT_ENCODING_LIMITS)` restores Redis's defaults. */
export function setEncodingLimits(change: Partial<EncodingLimits>): void {
  Object.assign(encodingLimits, change);
}

/** Redis 7.2's list-max-listpack-size rule: a list of `length` elements in `bytes` listpack bytes still fits. */
export function listFitsListpack(bytes: number, length: number, half = false): boolean {
  const size = encodingLimits.listMaxListpackSize;
  if (size >= 0) return length <= (half ? size >>> 1 : size);
  const limit = 4096 << (Math.min(-size, 5) - 1);
  return bytes <= (half ? limit >>> 1 : limit);
}
