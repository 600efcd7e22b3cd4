import { CorruptRecordError } from './errors.js';
import type { HybridLog } from './hybrid-log.js';
import { scanLog } from './log-scan.js';
import type { DamageLog } from './record-damage.js';
import {
  createRecordSpace,
  flagsOf,
  RecordFlag,
  type RecordSpace,
  slotSize,
} from './record-layout.js';
import type { CompactionResult } from './store-options.js';

/** What compaction needs of the store. */
export interface CompactionHost {
  readonly log: HybridLog;
  copyIfLive(space: RecordSpace, address: number): Promise<boolean> | boolean;
  relocateBlobIfLive(key: Uint8Array, blobAddress: number): Promise<boolean> | boolean;
  readBlobKey(address: number): Promise<Buffer | null>;
  checkpoint(): Promise<number>;
  /** Where a damaged page that stops compaction is reported. */
  readonly damage: Pick<DamageLog, 'page'>;
}

/**
 * Compacts the log below `until` (default: every whole segment below
 * `head`): live records are copied to the tail, the rest dropped, a
 * checkpoint is taken, then those segments are truncated. Runs in
 * page-sized slices, yielding between pages, while other operations go on.
 *
 * Damage stops it short, never past: a page that fails its check, or a
 * record whose liveness cannot be decided because a damaged record lies
 * above it on its key's chain, ends the range at that page. What lies below
 * is compacted as usual; that page and everything after it stay, unread
 * records and all (dropping them would lose the live records after the
 * damage, or drop a damaged key's newest version so that an older one
 * resurfaced without anyone knowing). The page is reported to the store's
 * damage log and in the result (`damagedAt`); the damaged keys stay
 * reported on every read until they are deleted or overwritten.
 */
export async function runCompaction(
  host: CompactionHost,
  until?: number,
): Promise<CompactionResult> {
  const log = host.log;
  const S = host.log.device.segmentSize;
  const limit = Math.floor(Math.min(log.head, log.flushedUntil) / S) * S;
  const target = Math.min(until ?? limit, limit);
  const begin = log.begin;
  const result: CompactionResult = {
    until: begin,
    scanned: 0,
    copied: 0,
    dropped: 0,
    bytesFreed: 0,
    damagedAt: null,
  };
  if (target <= begin) return result;
  const P = log.pageSize;
  /** The page compaction stops at: a record there could not be decided (damage above it). */
  let stopAt: number | null = null;
  // Copies of live records, collected per page and processed between pages.
  const batch: Array<{ address: number; bytes: Uint8Array }> = [];
  const blobs: number[] = [];
  const processBatch = async (): Promise<void> => {
    for (const r of batch) {
      const space = createRecordSpace(r.bytes.length);
      space.bytes.set(r.bytes);
      let copied: boolean;
      try {
        copied = await host.copyIfLive(space, r.address);
      } catch (e) {
        if (!(e instanceof CorruptRecordError)) throw e;
        stopAt = Math.floor(r.address / P) * P;
        break;
      }
      if (copied) result.copied++;
      else result.dropped++;
    }
    batch.length = 0;
  };
  const scan = await scanLog({
    device: host.log.device,
    pageSize: log.pageSize,
    from: begin,
    to: target,
    onRecord: (space, off, address) => {
      if (stopAt !== null) return false;
      result.scanned++;
      const flags = flagsOf(space, off);
      if ((flags & (RecordFlag.INVALID | RecordFlag.TOMBSTONE)) !== 0) {
        result.dropped++;
        return true;
      }
      // A copy: the scanner reuses its page buffer (Buffer#slice would be a view).
      batch.push({
        address,
        bytes: Uint8Array.prototype.slice.call(space.bytes, off, off + slotSize(space, off)),
      });
      return true;
    },
    onBlob: (address) => {
      blobs.push(address);
    },
    onPage: async () => {
      if (batch.length > 0) await processBatch();
      // Let other operations run between slices.
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
  });
  if (stopAt === null) await processBatch();
  // A bad page met by the scan (below head and flushed: damage, not a torn tail).
  const damagedAt = stopAt ?? scan.cutAt;
  let newBegin = damagedAt ?? scan.end;
  // Blobs in the range may belong to live records beyond it: move those.
  for (const address of blobs) {
    if (address >= newBegin) break;
    let key: Buffer | null;
    let relocated: boolean;
    try {
      key = await host.readBlobKey(address);
      relocated = key !== null && (await host.relocateBlobIfLive(key, address));
    } catch (e) {
      if (!(e instanceof CorruptRecordError)) throw e;
      newBegin = Math.floor(address / P) * P;
      break;
    }
    if (relocated) result.copied++;
  }
  if (damagedAt !== null) {
    result.damagedAt = damagedAt;
    host.damage.page(
      damagedAt,
      stopAt !== null ? 'a record there is behind a damaged one' : (scan.reason ?? 'bad page'),
    );
  }
  if (newBegin <= begin) return result;
  // Drop the range (a blob crossing its end stays, from its start), make
  // the copies and the new begin durable in a checkpoint, then free the
  // segments: a crash at any point leaves a consistent store.
  log.dropUntil(newBegin);
  await host.checkpoint();
  await log.truncateDevice();
  result.until = newBegin;
  result.bytesFreed = newBegin - begin;
  return result;
}
