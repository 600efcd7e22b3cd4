// The async driver of pending steps and the device reads it does for them.

import { isStrataError } from '@strata/io';
import { readBlob, readBlobRange } from './blob-read.js';
import type { CoreState } from './core-state.js';
import { firstRead } from './early-reads.js';
import { CorruptRecordError, HlogError, RecordDamage } from './errors.js';
import { legacyPageVerified } from './legacy-page-check.js';
import { RecordCheck, verifyRecord } from './record-checksum.js';
import {
  align8,
  createRecordSpace,
  flagsOf,
  keyEquals,
  keyLengthOf,
  keyOffsetOf,
  previousAddress,
  RECORD_HEADER_SIZE,
  RecordFlag,
  type RecordSpace,
  usedSize,
} from './record-layout.js';
import {
  Hint,
  MAX_RETRIES,
  R_NEED_BLOB_RANGE,
  R_NEED_BLOB_READ,
  R_NEED_BLOB_WRITE,
  R_NEED_DISK,
  R_NEED_SPACE,
} from './step-codes.js';

export function pendingView<T>(
  c: CoreState,
  pending: Promise<T>,
): {
  readonly status: 'pending';
  readonly pending: Promise<T>;
} {
  c.counters.pending++;
  if (c.pendingCapture !== null) c.pendingCapture.push(pending);
  return { status: 'pending', pending };
}

/** Drives a step that could not finish synchronously and returns its pending view. */
export function drivePending<T>(
  c: CoreState,
  key: Uint8Array,
  first: number,
  step: (hint: Hint) => number,
  finish: (code: number) => T,
): { readonly status: 'pending'; readonly pending: Promise<T> } {
  return pendingView(c, drive(c, key, first, step, finish));
}

export async function drive<T>(
  c: CoreState,
  key: Uint8Array,
  first: number,
  step: (hint: Hint) => number,
  finish: (code: number) => T,
  startHint?: Hint,
): Promise<T> {
  const hint = startHint ?? new Hint();
  // Whether the operation touches its key is decided when it starts: by
  // the time the device answers, another command may be running.
  const touching = c.access.touching;
  let code = first;
  for (let round = 0; ; round++) {
    if (round > MAX_RETRIES) {
      throw new HlogError('ERR_CORRUPT', 'operation did not converge (log chain is corrupt?)');
    }
    if (c.closed) throw new HlogError('ERR_STORE_CLOSED', 'store is closed');
    switch (code) {
      case R_NEED_DISK: {
        const entry = c.entry;
        const start = c.diskStart;
        try {
          hint.damaged = false;
          await walkDisk(c, key, start, hint);
          hint.walked = true;
          hint.entry = entry;
          hint.start = start;
        } catch (e) {
          if (hint.tolerateDamage && e instanceof CorruptRecordError) {
            // Walked as far as it can be: the step decides (DEL writes its tombstone).
            hint.walked = true;
            hint.found = false;
            hint.damaged = true;
            hint.entry = entry;
            hint.start = start;
          } else {
            // The walk ran into truncated log (compaction): start again.
            if (!isStrataError(e, 'ERR_ADDRESS_OUT_OF_RANGE')) throw e;
            hint.walked = false;
          }
        }
        break;
      }
      case R_NEED_SPACE:
        await c.log.waitForSpace();
        break;
      case R_NEED_BLOB_READ: {
        const address = c.blobAddress;
        try {
          hint.oldBlob = await readBlob(c, address, c.blobKeyLength, c.blobLength);
          hint.oldBlobAddress = address;
        } catch (e) {
          if (isStrataError(e, 'ERR_CORRUPT'))
            throw damaged(c, key, address, RecordDamage.BLOB_DAMAGED, e.message);
          // Compacted away meanwhile: the step finds the copy.
          if (!isStrataError(e, 'ERR_ADDRESS_OUT_OF_RANGE')) throw e;
          hint.walked = false;
        }
        break;
      }
      case R_NEED_BLOB_RANGE: {
        const address = c.blobAddress;
        const from = c.rangeFrom;
        const to = c.rangeTo;
        try {
          const r = await readBlobRange(c, address, c.blobKeyLength, c.blobLength, from, to);
          hint.rangeAddress = address;
          hint.rangeFrom = from;
          hint.rangeTo = to;
          hint.rangeBytes = r.bytes;
          hint.rangeOffset = r.offset;
        } catch (e) {
          if (isStrataError(e, 'ERR_CORRUPT'))
            throw damaged(c, key, address, RecordDamage.BLOB_DAMAGED, e.message);
          // Compacted away meanwhile: the step finds the copy.
          if (!isStrataError(e, 'ERR_ADDRESS_OUT_OF_RANGE')) throw e;
          hint.walked = false;
        }
        break;
      }
      case R_NEED_BLOB_WRITE: {
        const value = c.pendingBlob!;
        const blobFor = c.pendingBlobFor;
        const entry = c.entry;
        const old = c.pendingBlobOld;
        c.pendingBlob = null;
        c.pendingBlobFor = null;
        const written = c.log.writeBlob(key, value);
        if (written === null) throw c.log.failure ?? new HlogError('ERR_IO', 'log failed');
        hint.newBlobAddress = await written;
        // An upsert's blob is its value whatever the state; a computed one
        // (rmw) is only good for the state it was computed from.
        hint.newBlobFor = old === -1 ? blobFor : null;
        hint.newBlobValue = old === -1 ? null : value;
        hint.newBlobEntry = entry;
        hint.newBlobOld = old;
        break;
      }
      default:
        return finish(code);
    }
    c.counters.retries++;
    const outer = c.access.touching;
    c.access.touching = touching;
    try {
      code = step(hint);
    } finally {
      c.access.touching = outer;
    }
  }
}

/** Follows the chain on the device from `address` until `key` is found. */
export async function walkDisk(
  c: CoreState,
  key: Uint8Array,
  address: number,
  hint: Hint,
): Promise<void> {
  let a = address;
  hint.found = false;
  while (a !== 0 && a >= c.log.begin) {
    const space =
      a === hint.knownAddress && hint.knownSpace !== null
        ? hint.knownSpace
        : await readRecord(c, key, a);
    if (
      (flagsOf(space, 0) & RecordFlag.INVALID) === 0 &&
      keyEquals(space.bytes, keyOffsetOf(space, 0), keyLengthOf(space, 0), key)
    ) {
      hint.found = true;
      hint.space = space;
      hint.address = a;
      return;
    }
    a = previousAddress(space, 0);
  }
}

/**
 * Reads the record at `address` (on `key`'s chain) from the device into its
 * own space, verified before any byte of it is used: its checksum, or, for a
 * record written before checksums, its page's (legacy-page-check.ts). A
 * record that fails is never returned, nor is the chain followed past it to
 * an older version: a `CorruptRecordError` names the key, the address and
 * the damage, and the store's `damage` log counts it.
 */
export async function readRecord(
  c: CoreState,
  key: Uint8Array,
  address: number,
): Promise<RecordSpace> {
  const P = c.log.pageSize;
  const room = (Math.floor(address / P) + 1) * P - address;
  // A pipelined run's prefetch may have started this read already (early-reads.ts).
  const early = c.earlyReads.take(address);
  const first = (early === undefined ? null : await early) ?? (await firstRead(c, address));
  let space = first.space;
  let asked = space.bytes.length;
  let n = first.n;
  if (n === asked && n >= RECORD_HEADER_SIZE && (flagsOf(space, 0) & RecordFlag.VALID) !== 0) {
    // A record longer than the first read: read it whole (never past its page).
    const used = usedSize(space, 0);
    if (used > n && used <= room) {
      space = createRecordSpace(align8(used));
      asked = used;
      c.counters.diskReads++;
      n = await c.log.device.read(address, space.bytes.subarray(0, used));
    }
  }
  const check = verifyRecord(space, 0, n);
  if (check === RecordCheck.OK) return space;
  if (check === RecordCheck.NO_CHECKSUM) {
    if (await legacyPageVerified(c, address)) return space;
    throw damaged(c, key, address, RecordDamage.PAGE_CHECKSUM_MISMATCH);
  }
  // Fewer bytes than asked: the device ends inside the record.
  if (n < asked) throw damaged(c, key, address, RecordDamage.SHORT_READ);
  throw damaged(
    c,
    key,
    address,
    check === RecordCheck.NOT_A_RECORD
      ? RecordDamage.NOT_A_RECORD
      : check === RecordCheck.BAD_LENGTH
        ? RecordDamage.BAD_LENGTH
        : RecordDamage.CHECKSUM_MISMATCH,
  );
}

/** The error for a damaged record on `key`'s chain, counted in the store's damage log. */
export function damaged(
  c: CoreState,
  key: Uint8Array,
  address: number,
  damage: RecordDamage,
  detail?: string,
): CorruptRecordError {
  const e = new CorruptRecordError(key, address, damage, detail);
  c.damage.record(e);
  return e;
}

/** The newest record of `key` on the device chain from `start`, or null (the live-key count). */
export async function readNewest(
  c: CoreState,
  key: Buffer,
  start: number,
): Promise<RecordSpace | null> {
  const hint = new Hint();
  await walkDisk(c, key, start, hint);
  return hint.found ? hint.space : null;
}
