import { mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { decodeRecord, encodeSlot, newRecord, slotOffset } from './clean-close-record.js';
import { HlogError } from './errors.js';
import type { SkippedPages } from './log-scan.js';

/**
 * Where checkpoints live. A checkpoint is an index snapshot plus a small
 * metadata record (address markers, epoch, checksums). `write` must make the
 * checkpoint visible atomically and only once it is durable: a crash in the
 * middle leaves earlier checkpoints as they were.
 */
export interface CheckpointStore {
  /** Sequence numbers of visible checkpoints, any order. */
  list(): Promise<number[]>;
  /**
   * Sequence numbers of checkpoints whose index was written but whose meta
   * is missing (a write cut short, or the meta file removed): not visible,
   * reported by recovery, and numbered past.
   */
  incomplete?(): Promise<number[]>;
  /**
   * The highest sequence number of any checkpoint file there, visible or
   * not (incomplete, or hidden by a wrapper): new checkpoints are numbered
   * past it, so writing one never overwrites a file it did not write.
   */
  highest?(): Promise<number>;
  write(seq: number, meta: CheckpointMeta, index: readonly Uint8Array[]): Promise<void>;
  /** The checkpoint, or null when it is missing or fails its checksums. The bytes are the caller's (recovery's index adopts them). */
  read(seq: number): Promise<{ meta: CheckpointMeta; index: Uint8Array } | null>;
  remove(seq: number): Promise<void>;
  /** Highest session epoch handed out (so pages of a new session sort after every old one). */
  readEpoch(): Promise<number>;
  writeEpoch(epoch: number): Promise<void>;
  /**
   * The log's end at the last close that flushed and synced it whole
   * without a checkpoint (a fold-over: one moment), or a new store's empty
   * start, or a commit point (`Store.commit`: the same fold-over, flush
   * and sync, the store staying open), or null; `write` drops it (a
   * checkpoint is newer). Recovery that
   * keeps to one moment (`consistentRecovery`) replays the log after the
   * checkpoint up to this point, never the tail a crash left past it.
   */
  readCleanClose(): Promise<number | null>;
  writeCleanClose(point: number): Promise<void>;
}

export interface CheckpointMeta {
  version: 1;
  seq: number;
  epoch: number;
  /** Lowest live address when it was taken. */
  begin: number;
  /** Fold-over point: the log below it is on the device and never changes. */
  until: number;
  pageSize: number;
  /** Bytes of the snapshot (index, then the live-key count), and their crc32. */
  indexBytes: number;
  indexCrc: number;
  /** Bytes of the live-key count at the end of the snapshot (absent: none, recount on open). */
  countBytes?: number;
  /**
   * Runs of log below `until` that a crash left and a recovery did not
   * replay (`consistentRecovery`): no index entry or chain points there, so
   * a recount of the log passes over them (their records are no keys).
   */
  unreplayed?: SkippedPages[];
  createdAt: number;
}

/** Bytes checksummed per event-loop turn by `sealMeta` (about 1 ms of crc32). */
const CRC_SLICE_BYTES = 2 << 20;

/**
 * Fills in `indexBytes` and `indexCrc`. The crc32 runs in slices of about
 * 2 MiB, yielding between them: a large index is not one long pause.
 */
export async function sealMeta(
  meta: Omit<CheckpointMeta, 'indexBytes' | 'indexCrc'>,
  index: readonly Uint8Array[],
): Promise<CheckpointMeta> {
  let crc = 0;
  let bytes = 0;
  let sinceYield = 0;
  for (const p of index) {
    for (let at = 0; at < p.byteLength; at += CRC_SLICE_BYTES) {
      const end = Math.min(p.byteLength, at + CRC_SLICE_BYTES);
      crc = crc32(p.subarray(at, end), crc);
      sinceYield += end - at;
      if (sinceYield >= CRC_SLICE_BYTES) {
        sinceYield = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    bytes += p.byteLength;
  }
  return { ...meta, indexBytes: bytes, indexCrc: crc };
}

function validMeta(meta: unknown, seq: number): meta is CheckpointMeta {
  if (typeof meta !== 'object' || meta === null) return false;
  const m = meta as Record<string, unknown>;
  return (
    m.version === 1 &&
    m.seq === seq &&
    (m.unreplayed === undefined || Array.isArray(m.unreplayed)) &&
    ['epoch', 'begin', 'until', 'pageSize', 'indexBytes', 'indexCrc'].every(
      (k) => typeof m[k] === 'number' && Number.isFinite(m[k]),
    )
  );
}

function verified(meta: CheckpointMeta, index: Uint8Array): boolean {
  return index.byteLength === meta.indexBytes && crc32(index) === meta.indexCrc;
}

/** The reads of a summed file: one chunk summed while the next is read. */
const SUMMED_READ_CHUNK = 4 << 20;

/**
 * Reads a file whole with its crc32, the sum of each chunk taken while the
 * next chunk is read: a restart reads a 2M-key index (40 MB) in ~40 ms and
 * sums it in ~18 more, now mostly overlapped. Null if the file is not
 * `size` bytes long.
 */
async function readSummed(
  path: string,
  size: number,
): Promise<{ bytes: Buffer; crc: number } | null> {
  const fh = await open(path, 'r');
  try {
    if ((await fh.stat()).size !== size) return null;
    // Every byte is read into it below, or the file is refused.
    const bytes = Buffer.allocUnsafe(size);
    const readAt = async (at: number): Promise<boolean> => {
      const end = Math.min(size, at + SUMMED_READ_CHUNK);
      for (let pos = at; pos < end; ) {
        const { bytesRead } = await fh.read(bytes, pos, end - pos, pos);
        if (bytesRead === 0) return false;
        pos += bytesRead;
      }
      return true;
    };
    let crc = 0;
    let reading = size > 0 ? readAt(0) : null;
    for (let at = 0; reading !== null; at += SUMMED_READ_CHUNK) {
      if (!(await reading)) return null;
      const next = at + SUMMED_READ_CHUNK;
      reading = next < size ? readAt(next) : null;
      crc = crc32(bytes.subarray(at, Math.min(size, next)), crc);
    }
    return { bytes, crc };
  } finally {
    await fh.close();
  }
}

/** The file of `writeCleanClose`. */
const CLEAN_CLOSE = 'clean-close';

/** Checkpoints as files: `checkpoint.<seq>.index`, then `checkpoint.<seq>.meta` by rename. */
export class FileCheckpointStore implements CheckpointStore {
  readonly dir: string;
  /** The clean-close file's newest sequence, once read or written (null: not known, or no file). */
  private cleanCloseSeq: number | null = null;

  constructor(dir: string) {
    this.dir = dir;
  }

  list(): Promise<number[]> {
    return this.seqsOf('meta');
  }

  async incomplete(): Promise<number[]> {
    const metas = new Set(await this.seqsOf('meta'));
    return (await this.seqsOf('index')).filter((seq) => !metas.has(seq));
  }

  async highest(): Promise<number> {
    return Math.max(0, ...(await this.seqsOf('meta')), ...(await this.seqsOf('index')));
  }

  /** The sequence numbers of the `checkpoint.<seq>.<ext>` files. */
  private async seqsOf(ext: 'meta' | 'index'): Promise<number[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const pattern = new RegExp(`^checkpoint\\.(\\d+)\\.${ext}$`);
    const seqs: number[] = [];
    for (const n of names) {
      const m = pattern.exec(n);
      if (m?.[1] !== undefined) seqs.push(Number(m[1]));
    }
    return seqs;
  }

  private path(seq: number, ext: string): string {
    return join(this.dir, `checkpoint.${seq}.${ext}`);
  }

  async write(seq: number, meta: CheckpointMeta, index: readonly Uint8Array[]): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeDurably(this.path(seq, 'index'), index);
    const tmp = this.path(seq, 'meta.tmp');
    await writeDurably(tmp, [Buffer.from(JSON.stringify(meta))]);
    await rename(tmp, this.path(seq, 'meta'));
    await syncDir(this.dir);
    // The checkpoint is newer than any clean close.
    this.cleanCloseSeq = null;
    await rm(join(this.dir, CLEAN_CLOSE), { force: true });
  }

  /** The meta file of checkpoint `seq` alone (its index not read or verified), or null. */
  async readMeta(seq: number): Promise<CheckpointMeta | null> {
    try {
      const meta: unknown = JSON.parse(await readFile(this.path(seq, 'meta'), 'utf8'));
      return validMeta(meta, seq) ? meta : null;
    } catch {
      return null;
    }
  }

  async read(seq: number): Promise<{ meta: CheckpointMeta; index: Uint8Array } | null> {
    try {
      const meta = await this.readMeta(seq);
      if (meta === null) return null;
      const index = await readSummed(this.path(seq, 'index'), meta.indexBytes);
      return index !== null && index.crc === meta.indexCrc ? { meta, index: index.bytes } : null;
    } catch {
      return null;
    }
  }

  async remove(seq: number): Promise<void> {
    await rm(this.path(seq, 'meta'), { force: true });
    await rm(this.path(seq, 'index'), { force: true });
  }

  async readEpoch(): Promise<number> {
    try {
      const n = Number((await readFile(join(this.dir, 'epoch'), 'utf8')).trim());
      return Number.isSafeInteger(n) && n >= 0 ? n : 0;
    } catch {
      return 0;
    }
  }

  async writeEpoch(epoch: number): Promise<void> {
    await this.writeNumber('epoch', epoch);
  }

  async readCleanClose(): Promise<number | null> {
    let bytes: Buffer;
    try {
      bytes = await readFile(join(this.dir, CLEAN_CLOSE));
    } catch {
      this.cleanCloseSeq = null;
      return null;
    }
    const slot = decodeRecord(bytes);
    // An older store's text file is replaced whole by the next write.
    this.cleanCloseSeq = slot === null || slot.seq === 0 ? null : slot.seq;
    return slot?.point ?? null;
  }

  /**
   * The next slot of the clean-close file (clean-close-record.ts), synced:
   * one fdatasync per commit point. A new file (none yet, or an older
   * store's) is written whole and renamed into place, as a checkpoint's meta.
   */
  async writeCleanClose(point: number): Promise<void> {
    if (this.cleanCloseSeq === null) await this.readCleanClose();
    const seq = this.cleanCloseSeq;
    if (seq === null) {
      await mkdir(this.dir, { recursive: true });
      const tmp = join(this.dir, `${CLEAN_CLOSE}.tmp`);
      await writeDurably(tmp, [newRecord(point)]);
      await rename(tmp, join(this.dir, CLEAN_CLOSE));
      await syncDir(this.dir);
      this.cleanCloseSeq = 1;
      return;
    }
    const fh = await open(join(this.dir, CLEAN_CLOSE), 'r+');
    try {
      const slot = encodeSlot(seq + 1, point);
      await fh.write(slot, 0, slot.byteLength, slotOffset(seq + 1));
      await fh.datasync();
    } finally {
      await fh.close();
    }
    this.cleanCloseSeq = seq + 1;
  }

  /** A small file replaced atomically and durably (write a temporary, sync, rename, sync the directory). */
  private async writeNumber(name: string, n: number): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const tmp = join(this.dir, `${name}.tmp`);
    await writeDurably(tmp, [Buffer.from(String(n))]);
    await rename(tmp, join(this.dir, name));
    await syncDir(this.dir);
  }
}

async function writeDurably(path: string, parts: readonly Uint8Array[]): Promise<void> {
  const fh = await open(path, 'w');
  try {
    let pos = 0;
    for (const p of parts) {
      let done = 0;
      while (done < p.byteLength) {
        const { bytesWritten } = await fh.write(p, done, p.byteLength - done, pos + done);
        done += bytesWritten;
      }
      pos += p.byteLength;
    }
    await fh.datasync();
  } finally {
    await fh.close();
  }
}

async function syncDir(dir: string): Promise<void> {
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // Directory fsync is unsupported on some platforms; rename is still atomic.
  } finally {
    await fh?.close();
  }
}

/**
 * Checkpoints in memory, for stores on a MemoryDevice: hand the same object
 * to the next `open` to simulate a restart. `failNextWriteAfterIndex`
 * simulates a crash between writing the index and the metadata.
 */
export class MemoryCheckpointStore implements CheckpointStore {
  private readonly entries = new Map<number, { meta: CheckpointMeta; index: Uint8Array }>();
  private epoch = 0;
  private cleanClose: number | null = null;
  failNextWrite = false;

  async list(): Promise<number[]> {
    return [...this.entries.keys()];
  }

  async write(seq: number, meta: CheckpointMeta, index: readonly Uint8Array[]): Promise<void> {
    if (this.failNextWrite) {
      this.failNextWrite = false;
      throw new HlogError('ERR_IO', 'simulated crash while writing a checkpoint');
    }
    this.entries.set(seq, { meta: { ...meta }, index: Buffer.concat(index) });
    this.cleanClose = null;
  }

  async read(seq: number): Promise<{ meta: CheckpointMeta; index: Uint8Array } | null> {
    const e = this.entries.get(seq);
    // A copy: the caller owns what it reads (the index adopts the bytes).
    return e !== undefined && verified(e.meta, e.index)
      ? { meta: { ...e.meta }, index: Uint8Array.prototype.slice.call(e.index) }
      : null;
  }

  async remove(seq: number): Promise<void> {
    this.entries.delete(seq);
  }

  async readEpoch(): Promise<number> {
    return this.epoch;
  }

  async writeEpoch(epoch: number): Promise<void> {
    this.epoch = epoch;
  }

  async readCleanClose(): Promise<number | null> {
    return this.cleanClose;
  }

  async writeCleanClose(point: number): Promise<void> {
    this.cleanClose = point;
  }

  /** Test hook: corrupt a stored index byte. */
  corrupt(seq: number): void {
    const e = this.entries.get(seq);
    if (e !== undefined && e.index.byteLength > 0) e.index[e.index.byteLength >> 1]! ^= 0xff;
  }
}
