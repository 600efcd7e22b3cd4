import { ByteReader } from './byte-reader.js';
import { ByteWriter } from './byte-writer.js';
import { Crc64, crc64 } from './crc64.js';
import { RdbError } from './errors.js';
import { RDB_VERSION_7_0, RDB_VERSION_7_4 } from './rdb-types.js';
import { decodeValue, type RdbValue } from './value-decode.js';
import {
  type EncodableValue,
  type EncodeOptions,
  encodeValue,
  soonestFieldExpiry,
} from './value-encode.js';

// A DUMP payload (cluster.c createDumpPayload / verifyDumpPayload): the
// value's type byte and encoding, the RDB version as 2 bytes little-endian,
// then the CRC-64 of everything before it as 8 bytes little-endian.

const FOOTER = 10;

export interface ParsedDump {
  readonly value: RdbValue;
  /** The RDB version in the payload's footer. */
  readonly rdbVersion: number;
}

export interface ParseDumpOptions {
  /** Newest RDB version accepted (default 10, as Redis 7.0: it refuses 7.2's payloads). */
  readonly maxVersion?: number;
}

/**
 * Checks and decodes a DUMP payload. A short payload, a newer version or a
 * wrong checksum is an ERR_DUMP_PAYLOAD error (the server's `ERR DUMP payload
 * version or checksum are wrong`); a payload that passes those checks but
 * does not decode is ERR_RDB_CORRUPT / ERR_RDB_TRUNCATED / ERR_RDB_UNSUPPORTED
 * (Redis's `ERR Bad data format`).
 */
export function parseDumpPayload(payload: Buffer, options: ParseDumpOptions = {}): ParsedDump {
  if (payload.length < FOOTER + 1) {
    throw new RdbError('ERR_DUMP_PAYLOAD', 'DUMP payload shorter than its footer', 0);
  }
  const footer = payload.length - FOOTER;
  const rdbVersion = payload.readUInt16LE(footer);
  const max = options.maxVersion ?? RDB_VERSION_7_0;
  if (rdbVersion > max) {
    throw new RdbError(
      'ERR_DUMP_PAYLOAD',
      `DUMP payload RDB version ${rdbVersion} is newer than ${max}`,
      footer,
    );
  }
  const expected = payload.readBigUInt64LE(footer + 2);
  if (crc64(payload.subarray(0, footer + 2)) !== expected) {
    throw new RdbError('ERR_DUMP_PAYLOAD', 'DUMP payload checksum is wrong', footer + 2);
  }
  const r = new ByteReader(payload.subarray(0, footer), 'truncated');
  const type = r.u8();
  return { value: decodeValue(type, r), rdbVersion };
}

export interface EncodeDumpOptions extends EncodeOptions {
  /**
   * RDB version written in the footer (default: 10, Redis 7.0's, which
   * Redis 7.0's RESTORE accepts; 12, Redis 7.4's, for a hash with field
   * TTLs, whose encoding only 7.4 and later read).
   */
  readonly rdbVersion?: number;
}

/** A DUMP payload of `value` that Redis 7.0's RESTORE accepts (7.4's, for a hash with field TTLs). */
export function encodeDumpPayload(value: EncodableValue, options: EncodeDumpOptions = {}): Buffer {
  const w = new ByteWriter(options.compress ?? true);
  encodeValue(value, w, options);
  const version = Buffer.alloc(2);
  const needed = soonestFieldExpiry(value) !== 0 ? RDB_VERSION_7_4 : RDB_VERSION_7_0;
  version.writeUInt16LE(options.rdbVersion ?? needed, 0);
  w.raw(version);
  const body = w.toBuffer();
  return Buffer.concat([body, new Crc64().update(body).digestBytes()]);
}
