import { constants, read as readFd } from 'node:fs';
import { type FileHandle, mkdir, open, unlink } from 'node:fs/promises';
import type { Address, ByteCount } from './address.js';
import type { DeviceOptions } from './device.js';
import { InvalidArgumentError } from './errors.js';
import { checkSegmentFileName, scanSegmentFiles, segmentFilePath } from './segment-files.js';
import { SegmentedDevice } from './segmented-device.js';

export interface FileDeviceOptions extends DeviceOptions {
  /** Directory holding the segment files; created on the first write. */
  dir: string;
  /** Segment files are `<dir>/<name>.<segment>`. */
  name: string;
}

const OPEN_EXISTING = constants.O_RDWR;
const OPEN_CREATE = constants.O_RDWR | constants.O_CREAT;
const FILE_MODE = 0o644;
/** Directory fsync is not possible everywhere (Windows); these codes mean "unsupported". */
const DIR_SYNC_UNSUPPORTED = new Set(['EISDIR', 'EPERM', 'EACCES', 'EINVAL', 'ENOTSUP']);

/**
 * A device on segment files `<dir>/<name>.<n>`, one per `segmentSize` bytes,
 * with positioned IO through `fs/promises` file handles.
 *
 * - Handles open on first use and stay cached until `truncateUntil` drops
 *   their segment or `close()`; reads of a segment with no file read zeros
 *   and create nothing.
 * - Short reads and writes from the OS are continued until done (or EOF:
 *   the rest of a piece inside the device's end is a hole and reads as 0).
 * - `sync()` datasyncs the segment files written since the last sync, and
 *   the directory when files were created or removed.
 * - Constructing over an existing directory recovers `beginAddress` (the
 *   lowest segment file) and `endAddress` (the end of the highest data); the
 *   scan is one synchronous readdir plus a stat per segment file.
 * - OS failures reject with `IoError` (`osCode`, `address`, `segment`, `cause`).
 */
export class FileDevice extends SegmentedDevice {
  readonly dir: string;
  private readonly handles = new Map<number, FileHandle>();
  private readonly opening = new Map<number, Promise<FileHandle | undefined>>();
  /** Segment files that exist. */
  private readonly present = new Set<number>();
  /** Segments written since the last sync. */
  private readonly dirty = new Set<number>();
  private dirDirty = false;
  private dirReady: Promise<void> | undefined;

  constructor(options: FileDeviceOptions) {
    checkSegmentFileName(options.name);
    super(options.name, options);
    this.dir = options.dir;
    let files: Map<number, number>;
    try {
      files = scanSegmentFiles(this.dir, this.name);
    } catch (e) {
      throw this.ioError('scanning the directory', e, undefined, undefined);
    }
    let begin = Number.POSITIVE_INFINITY;
    let end = 0;
    for (const [segment, size] of files) {
      if (size > this.segmentSize) {
        throw new InvalidArgumentError(
          `${this.segmentPath(segment)} holds ${size} bytes, more than segmentSize ${this.segmentSize}: opened with the wrong segment size?`,
        );
      }
      this.present.add(segment);
      if (segment < begin) begin = segment;
      end = Math.max(end, segment * this.segmentSize + size);
    }
    this.restoreBounds(begin === Number.POSITIVE_INFINITY ? 0 : begin * this.segmentSize, end);
  }

  /** Creates the directory if needed, then constructs the device. */
  static async open(options: FileDeviceOptions): Promise<FileDevice> {
    await mkdir(options.dir, { recursive: true });
    return new FileDevice(options);
  }

  segmentPath(segment: number): string {
    return segmentFilePath(this.dir, this.name, segment);
  }

  /** File handles currently open. */
  get openFiles(): number {
    return this.handles.size;
  }

  protected override async readPiece(
    segment: number,
    offset: ByteCount,
    into: Uint8Array,
    intoOffset: ByteCount,
    length: ByteCount,
  ): Promise<void> {
    let handle = this.handles.get(segment);
    if (handle === undefined) {
      handle = await this.openSegment(segment, false, this.segmentStart(segment) + offset);
      if (handle === undefined) {
        into.fill(0, intoOffset, intoOffset + length);
        return;
      }
    }
    let done = 0;
    try {
      while (done < length) {
        const bytesRead = await readAt(
          handle.fd,
          into,
          intoOffset + done,
          length - done,
          offset + done,
        );
        if (bytesRead === 0) {
          into.fill(0, intoOffset + done, intoOffset + length);
          return;
        }
        done += bytesRead;
      }
    } catch (e) {
      throw this.ioError('read', e, segment, this.segmentStart(segment) + offset + done);
    }
  }

  protected override async writePiece(
    segment: number,
    offset: ByteCount,
    from: Uint8Array,
    fromOffset: ByteCount,
    length: ByteCount,
  ): Promise<void> {
    const handle =
      this.handles.get(segment) ??
      (await this.openSegment(segment, true, this.segmentStart(segment) + offset));
    if (handle === undefined) throw new Error('unreachable: open with O_CREAT returned nothing');
    let done = 0;
    try {
      while (done < length) {
        const { bytesWritten } = await handle.write(
          from,
          fromOffset + done,
          length - done,
          offset + done,
        );
        if (bytesWritten <= 0) throw new Error('write made no progress');
        done += bytesWritten;
      }
    } catch (e) {
      throw this.ioError('write', e, segment, this.segmentStart(segment) + offset + done);
    } finally {
      if (done > 0) this.dirty.add(segment);
    }
  }

  protected override async syncStorage(): Promise<void> {
    const syncDir = this.dirDirty;
    this.dirDirty = false;
    const segments = [...this.dirty];
    this.dirty.clear();
    try {
      await Promise.all(segments.map((segment) => this.syncSegment(segment)));
      if (syncDir) await this.syncDirectory();
    } catch (e) {
      if (syncDir) this.dirDirty = true;
      throw e;
    }
  }

  protected override async dropSegments(segment: number): Promise<void> {
    const doomed = [...this.present].filter((n) => n < segment);
    await Promise.all(doomed.map((n) => this.removeSegmentFile(n)));
    // The begin segment's file marks the begin address for the next open.
    if (!this.present.has(segment)) {
      await this.openSegment(segment, true, this.segmentStart(segment));
    }
  }

  protected override async closeStorage(): Promise<void> {
    const handles = [...this.handles.entries()];
    this.handles.clear();
    const results = await Promise.allSettled(handles.map(([, handle]) => handle.close()));
    for (let i = 0; i < results.length; i++) {
      const result = results[i]!;
      if (result.status === 'rejected') {
        throw this.ioError('close', result.reason, handles[i]![0], undefined);
      }
    }
  }

  private segmentStart(segment: number): Address {
    return segment * this.segmentSize;
  }

  /** The cached handle of `segment`, opening it (and with `create`, creating the file) if needed. */
  private async openSegment(
    segment: number,
    create: boolean,
    address: Address,
  ): Promise<FileHandle | undefined> {
    for (;;) {
      const cached = this.handles.get(segment);
      if (cached !== undefined) return cached;
      const pending = this.opening.get(segment);
      if (pending === undefined) break;
      const handle = await pending.catch(() => undefined);
      if (handle !== undefined) return handle;
    }
    const opening = this.openFile(segment, create);
    this.opening.set(segment, opening);
    try {
      return await opening;
    } catch (e) {
      throw this.ioError('open', e, segment, address);
    } finally {
      if (this.opening.get(segment) === opening) this.opening.delete(segment);
    }
  }

  private async openFile(segment: number, create: boolean): Promise<FileHandle | undefined> {
    if (create) {
      await this.ensureDir();
      // Keep the begin segment's file present: on reopen it marks the begin address.
      const begin = this.beginSegment;
      if (segment !== begin && !this.present.has(segment) && !this.present.has(begin)) {
        await this.openSegment(begin, true, this.segmentStart(begin));
      }
    }
    let handle: FileHandle;
    try {
      handle = await open(
        this.segmentPath(segment),
        create ? OPEN_CREATE : OPEN_EXISTING,
        FILE_MODE,
      );
    } catch (e) {
      if (!create && errorCode(e) === 'ENOENT') return undefined;
      throw e;
    }
    this.handles.set(segment, handle);
    if (!this.present.has(segment)) {
      this.present.add(segment);
      this.dirDirty = true;
    }
    return handle;
  }

  private ensureDir(): Promise<void> {
    if (this.dirReady === undefined) {
      this.dirReady = mkdir(this.dir, { recursive: true }).then(
        () => undefined,
        (e: unknown) => {
          this.dirReady = undefined;
          throw e;
        },
      );
    }
    return this.dirReady;
  }

  private async syncSegment(segment: number): Promise<void> {
    const handle = this.handles.get(segment);
    if (handle === undefined) return;
    try {
      await handle.datasync();
    } catch (e) {
      this.dirty.add(segment);
      throw this.ioError('datasync', e, segment, undefined);
    }
  }

  private async syncDirectory(): Promise<void> {
    let handle: FileHandle;
    try {
      handle = await open(this.dir, 'r');
    } catch (e) {
      if (DIR_SYNC_UNSUPPORTED.has(errorCode(e) ?? '')) return;
      throw this.ioError('opening the directory for sync', e, undefined, undefined);
    }
    try {
      await handle.sync();
    } catch (e) {
      if (!DIR_SYNC_UNSUPPORTED.has(errorCode(e) ?? '')) {
        throw this.ioError('directory sync', e, undefined, undefined);
      }
    } finally {
      await handle.close();
    }
  }

  private async removeSegmentFile(segment: number): Promise<void> {
    const handle = this.handles.get(segment);
    this.handles.delete(segment);
    this.dirty.delete(segment);
    try {
      if (handle !== undefined) await handle.close();
      await unlink(this.segmentPath(segment));
    } catch (e) {
      if (errorCode(e) !== 'ENOENT') throw this.ioError('truncate', e, segment, undefined);
    }
    this.present.delete(segment);
    this.dirDirty = true;
  }
}

/**
 * A positioned read of `fd` through `fs.read`'s callback: a third of the
 * CPU of `FileHandle.read` (its promise machinery and handle reference
 * counting; ~3.4 against ~8.5 µs a 512-byte read from the page cache, the
 * worker's pread included). The device never reads a handle while closing
 * it (`close` and `dropSegments` wait for every read in flight), which is
 * what the handle's counting guards.
 */
function readAt(
  fd: number,
  into: Uint8Array,
  intoOffset: ByteCount,
  length: ByteCount,
  position: ByteCount,
): Promise<number> {
  return new Promise((resolve, reject) => {
    readFd(fd, into, intoOffset, length, position, (error, bytesRead) => {
      if (error === null) resolve(bytesRead);
      else reject(error);
    });
  });
}

function errorCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string'
    ? e.code
    : undefined;
}
