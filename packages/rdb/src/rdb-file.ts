import { createReadStream } from 'node:fs';
import { ByteReader, NeedMore } from './byte-reader.js';
import { Crc64 } from './crc64.js';
import { RdbError } from './errors.js';
import { RDB_OPCODE } from './rdb-types.js';
import { decodeValue, type RdbValue } from './value-decode.js';

/** One key of an RDB file. */
export interface RdbRecord {
  readonly db: number;
  readonly key: Buffer;
  readonly value: RdbValue;
  /** Absolute expiry, Unix milliseconds; undefined when the key has none. */
  readonly expireAtMs: number | undefined;
  /** RDB_OPCODE_IDLE (LRU idle seconds) when the file has one for this key. */
  readonly idleSeconds: number | undefined;
  /** RDB_OPCODE_FREQ (LFU counter) when the file has one for this key. */
  readonly freq: number | undefined;
  /** Byte offset of the record (its first opcode) in the file. */
  readonly offset: number;
}

export interface RdbFileOptions {
  /** Newest RDB version accepted (default 12, Redis 7.4, hashes with field TTLs included). */
  readonly maxVersion?: number;
  /** Check the CRC-64 trailer (default true; a stored 0 means the writer disabled it). */
  readonly verifyChecksum?: boolean;
  /** The most bytes one record may take (default 1 GiB). */
  readonly maxRecordBytes?: number;
}

/** What one parsing step found (everything but a key updates the reader's state). */
type Step = { kind: 'key'; record: RdbRecord } | { kind: 'meta' } | { kind: 'eof' };

const MODULE_OPCODE_EOF = 0;
const MODULE_OPCODE_SINT = 1;
const MODULE_OPCODE_UINT = 2;
const MODULE_OPCODE_FLOAT = 3;
const MODULE_OPCODE_DOUBLE = 4;
const MODULE_OPCODE_STRING = 5;

/**
 * Reads an RDB file one record at a time from a byte stream (a file read
 * stream, a socket): only the record being decoded is held in memory.
 * Iterate it for the keys; `aux`, `functions` and `version` fill in as the
 * file is read. Errors are RdbErrors naming the byte offset.
 */
export class RdbFileReader implements AsyncIterable<RdbRecord> {
  /** The file's RDB version (after the header is read). */
  version = 0;
  /** AUX fields (redis-ver, ctime, used-mem, ...). */
  readonly aux = new Map<string, Buffer>();
  /** FUNCTION2 payloads: the source code of each function library. */
  readonly functions: Buffer[] = [];
  /** The byte offset of each FUNCTION2 opcode, parallel to `functions`. */
  readonly functionOffsets: number[] = [];
  /** Names of modules whose MODULE_AUX data was skipped. */
  readonly skippedModuleAux: string[] = [];
  /** Bytes consumed so far (for a progress bar). */
  bytesRead = 0;

  private buf: Buffer = Buffer.alloc(0);
  private base = 0; // file offset of buf[0]
  private ended = false;
  private readonly crc = new Crc64();
  private readonly source: AsyncIterator<Uint8Array>;
  private db = 0;
  private expireAtMs: number | undefined;
  private idleSeconds: number | undefined;
  private freq: number | undefined;
  private readonly maxVersion: number;
  private readonly verify: boolean;
  private readonly maxRecordBytes: number;

  constructor(source: AsyncIterable<Uint8Array>, options: RdbFileOptions = {}) {
    this.source = source[Symbol.asyncIterator]();
    this.maxVersion = options.maxVersion ?? 12;
    this.verify = options.verifyChecksum ?? true;
    this.maxRecordBytes = options.maxRecordBytes ?? 1 << 30;
  }

  /** Reads until the buffer reaches file offset `want`, or the input ends; true when `need` was reached. */
  private async fill(need: number, want: number): Promise<boolean> {
    const parts: Buffer[] = [this.buf];
    let end = this.base + this.buf.length;
    while (end < want && !this.ended) {
      const r = await this.source.next();
      if (r.done) {
        this.ended = true;
        break;
      }
      const chunk = Buffer.isBuffer(r.value) ? r.value : Buffer.from(r.value);
      parts.push(chunk);
      end += chunk.length;
    }
    if (parts.length > 1) this.buf = Buffer.concat(parts);
    return end >= need;
  }

  /** Drops the first n buffered bytes, feeding them to the checksum. */
  private consume(n: number): void {
    this.crc.update(this.buf, 0, n);
    this.buf = this.buf.subarray(n);
    this.base += n;
    this.bytesRead = this.base;
  }

  /** Runs `parse` over the buffered bytes, reading more until it has what it needs. */
  private async run<T>(parse: (r: ByteReader) => T): Promise<T> {
    for (;;) {
      const r = new ByteReader(this.buf, 'need-more', this.base, this.maxRecordBytes);
      try {
        const out = parse(r);
        this.consume(r.pos);
        return out;
      } catch (e) {
        if (!(e instanceof NeedMore)) throw e;
        if (e.end - this.base > this.maxRecordBytes) {
          throw new RdbError(
            'ERR_RDB_TOO_LARGE',
            `record needs more than ${this.maxRecordBytes} bytes`,
            this.base,
          );
        }
        // At least double the window so a big record is re-parsed O(log n) times.
        const want = Math.max(e.end, this.base + this.buf.length * 2, this.base + 65536);
        if (!(await this.fill(e.end, want))) {
          throw new RdbError(
            'ERR_RDB_TRUNCATED',
            `RDB file ends at byte ${this.base + this.buf.length} inside the record starting at byte ${this.base}`,
            this.base + this.buf.length,
          );
        }
      }
    }
  }

  private header(r: ByteReader): void {
    const magic = r.bytes(9).toString('latin1');
    if (!/^REDIS[0-9]{4}$/.test(magic)) {
      throw new RdbError('ERR_RDB_BAD_HEADER', 'not an RDB file (no REDIS000N header)', 0);
    }
    const version = Number(magic.slice(5));
    if (version < 1 || version > this.maxVersion) {
      throw new RdbError(
        'ERR_RDB_VERSION',
        `RDB version ${version} is not supported (1 to ${this.maxVersion})`,
        5,
      );
    }
    this.version = version;
  }

  private skipModuleValue(r: ByteReader): void {
    for (;;) {
      const at = r.offset;
      const op = r.len();
      if (op === MODULE_OPCODE_EOF) return;
      if (op === MODULE_OPCODE_SINT || op === MODULE_OPCODE_UINT) r.lenBig();
      else if (op === MODULE_OPCODE_FLOAT) r.bytes(4);
      else if (op === MODULE_OPCODE_DOUBLE) r.bytes(8);
      else if (op === MODULE_OPCODE_STRING) r.string();
      else throw r.corrupt(`unknown module opcode ${op}`, at);
    }
  }

  private step(r: ByteReader): Step {
    const at = r.offset;
    const op = r.u8();
    switch (op) {
      case RDB_OPCODE.EOF:
        return { kind: 'eof' };
      case RDB_OPCODE.SELECTDB:
        this.db = r.len();
        return { kind: 'meta' };
      case RDB_OPCODE.RESIZEDB:
        r.len();
        r.len();
        return { kind: 'meta' };
      case RDB_OPCODE.EXPIRETIME_MS:
        this.expireAtMs = r.i64le();
        return { kind: 'meta' };
      case RDB_OPCODE.EXPIRETIME: {
        const s = r.bytes(4).readInt32LE(0);
        this.expireAtMs = s * 1000;
        return { kind: 'meta' };
      }
      case RDB_OPCODE.FREQ:
        this.freq = r.u8();
        return { kind: 'meta' };
      case RDB_OPCODE.IDLE:
        this.idleSeconds = r.len();
        return { kind: 'meta' };
      case RDB_OPCODE.AUX: {
        const k = r.string().toString('latin1');
        this.aux.set(k, r.string());
        return { kind: 'meta' };
      }
      case RDB_OPCODE.FUNCTION2:
        this.functions.push(r.string());
        this.functionOffsets.push(at);
        return { kind: 'meta' };
      case RDB_OPCODE.FUNCTION_PRE_GA:
        throw new RdbError(
          'ERR_RDB_UNSUPPORTED',
          'pre-GA function format (Redis 7.0 release candidates) is not supported',
          at,
        );
      case RDB_OPCODE.MODULE_AUX: {
        const id = r.lenBig();
        const whenOp = r.len();
        if (whenOp !== MODULE_OPCODE_UINT) throw r.corrupt('bad MODULE_AUX header', at);
        r.len();
        this.skipModuleValue(r);
        this.skippedModuleAux.push(id.toString(16));
        return { kind: 'meta' };
      }
      case RDB_OPCODE.SLOT_INFO:
        r.len();
        r.len();
        r.len();
        return { kind: 'meta' };
      default: {
        const key = r.string();
        const value = decodeValue(op, r);
        return {
          kind: 'key',
          record: {
            db: this.db,
            key,
            value,
            expireAtMs: this.expireAtMs,
            idleSeconds: this.idleSeconds,
            freq: this.freq,
            offset: at,
          },
        };
      }
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<RdbRecord> {
    await this.run((r) => this.header(r));
    for (;;) {
      // Opcodes before a key (expiry, idle, freq) apply to that key only; keep
      // them across a retry of the same step by saving and restoring.
      const saved = [this.db, this.expireAtMs, this.idleSeconds, this.freq] as const;
      const step = await this.run((r) => {
        [this.db, this.expireAtMs, this.idleSeconds, this.freq] = saved;
        return this.step(r);
      });
      if (step.kind === 'eof') break;
      if (step.kind === 'key') {
        this.expireAtMs = undefined;
        this.idleSeconds = undefined;
        this.freq = undefined;
        yield step.record;
      }
    }
    if (this.version >= 5) {
      const computed = this.crc.digest();
      const stored = await this.run((r) => r.bytes(8).readBigUInt64LE(0));
      if (this.verify && stored !== 0n && stored !== computed) {
        throw new RdbError('ERR_RDB_CHECKSUM', 'RDB file checksum is wrong', this.base - 8);
      }
    }
  }
}

/** An RdbFileReader over the file at `path`, read in 1 MiB chunks. */
export function openRdbFile(path: string, options: RdbFileOptions = {}): RdbFileReader {
  return new RdbFileReader(createReadStream(path, { highWaterMark: 1 << 20 }), options);
}
