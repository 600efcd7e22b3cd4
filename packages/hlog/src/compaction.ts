import { HlogError } from './errors.js';
import type { HybridLog } from './hybrid-log.js';
import { scanLog } from './log-scan.js';
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
}

/**
 * Compacts the log below `until` (default: every whole segment below
 * `head`): live records are copied to the tail, the rest dropped, a
 * checkpoint is taken, then those segments are truncated. Runs in
 * page-sized slices, yielding between pages, while other operations go on.
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
  };
  if (target <= begin) return result;
  // Copies of live records, collected per page and processed between pages.
  const batch: Array<{ address: number; bytes: Uint8Array }> = [];
  const blobs: number[] = [];
  const processBatch = async (): Promise<void> => {
    for (const r of batch) {
      const space = createRecordSpace(r.bytes.length);
      space.bytes.set(r.bytes);
      const copied = await host.copyIfLive(space, r.address);
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
  await processBatch();
  if (scan.cutAt !== null) {
    // Never drop what could not be read and checked.
    throw new HlogError(
      'ERR_CORRUPT',
      `compaction stopped at ${scan.cutAt ?? scan.end}: ${scan.reason ?? 'short log'}`,
      { address: scan.cutAt ?? scan.end },
    );
  }
  // Blobs in the range may belong to live records beyond it: move those.
  for (const address of blobs) {
    const key = await host.readBlobKey(address);
    if (key !== null && (await host.relocateBlobIfLive(key, address))) result.copied++;
  }
  // Drop the range (a blob crossing its end stays, from its start), make
  // the copies and the new begin durable in a checkpoint, then free the
  // segments: a crash at any point leaves a consistent store.
  const newBegin = scan.end;
  log.dropUntil(newBegin);
  await host.checkpoint();
  await log.truncateDevice();
  result.until = newBegin;
  result.bytesFreed = newBegin - begin;
  return result;
}
