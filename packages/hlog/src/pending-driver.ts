// The async driver of pending steps and the device reads it does for them.

import { isStrataError } from '@strata/io';
import { readBlob, readBlobRange } from './blob-read.js';
import type { CoreState } from './core-state.js';
import { HlogError } from './errors.js';
import {
  align8,
  createRecordSpace,
  flagsOf,
  keyEquals,
  keyLengthOf,
  keyOffsetOf,
  previousAddress,
  RecordFlag,
  type RecordSpace,
  slotSize,
  usedSize,
} from './record-layout.js';
import {
  FIRST_READ,
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
          await walkDisk(c, key, start, hint);
          hint.walked = true;
          hint.entry = entry;
          hint.start = start;
        } catch (e) {
          // The walk ran into truncated log (compaction): start again.
          if (!isStrataError(e, 'ERR_ADDRESS_OUT_OF_RANGE')) throw e;
          hint.walked = false;
        }
        break;
      }
      case R_NEED_SPACE:
        await c.log.waitForProgress();
        break;
      case R_NEED_BLOB_READ: {
        const address = c.blobAddress;
        try {
          hint.oldBlob = await readBlob(c, address, c.blobKeyLength, c.blobLength);
          hint.oldBlobAddress = address;
        } catch (e) {
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
        : await readRecord(c, a);
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

/** Reads the record at `address` from the device into its own space. */
export async function readRecord(c: CoreState, address: number): Promise<RecordSpace> {
  const P = c.log.pageSize;
  const pageEnd = (Math.floor(address / P) + 1) * P;
  let space = createRecordSpace(Math.min(FIRST_READ, pageEnd - address));
  c.counters.diskReads++;
  let n = await c.log.device.read(address, space.bytes);
  if (n < 16 || (flagsOf(space, 0) & RecordFlag.VALID) === 0) throw corrupt(c, address);
  // A record that shrank in place (FILLER) keeps its slot size in the word
  // after its used bytes, which can lie past the first read: read up to it.
  const used = align8(usedSize(space, 0));
  const filler = (flagsOf(space, 0) & RecordFlag.FILLER) !== 0;
  const need = filler ? used + 8 : used;
  if (used < 16 || need > pageEnd - address) throw corrupt(c, address);
  if (need > n) {
    space = createRecordSpace(need);
    c.counters.diskReads++;
    n = await c.log.device.read(address, space.bytes);
    if (n < need) throw corrupt(c, address);
  }
  const size = slotSize(space, 0);
  if (size < used || size > pageEnd - address || size % 8 !== 0) throw corrupt(c, address);
  return space;
}

export function corrupt(_c: CoreState, address: number): HlogError {
  return new HlogError('ERR_CORRUPT', `no valid record at address ${address}`, { address });
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
