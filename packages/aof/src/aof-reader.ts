import { crc32 } from 'node:zlib';
import {
  type CommandSpan,
  commandRecordEnd,
  parseCommandRecord,
  RECORD_INCOMPLETE,
} from '@strata/protocol';
import { CRC_LABEL } from './aof-writer.js';
import { AofError } from './errors.js';
import type { AofFileHandle } from './file-system.js';
import { sameLetters, transactionVerb } from './transaction-span.js';

export interface ReadAofOptions {
  /**
   * Called for each command (SELECTs are consumed by the reader) with its
   * database and the offset where its record (or the SELECT before it)
   * starts. A returned promise is awaited before the next command.
   */
  onCommand(db: number, argv: Buffer[], offset: number): void | Promise<void>;
  /** Called for each annotation line (`#...`, Redis 7's), with its text after `#`. */
  onAnnotation?(text: Buffer, offset: number): void;
  /** Called after each `#CRC:` line that matched, with the offset after it. */
  onChecked?(end: number): void;
  /** Bytes read per slice; the reader yields to the event loop between slices. Default 1 MiB. */
  sliceBytes?: number;
  /** Database in effect at the start of the file. Default 0. */
  db?: number;
  /**
   * Commands the caller will not apply, passed over without making their
   * arguments: `before` says whether the command of `db` at `offset` is one
   * (a replay that resumes past it), `onPassed` hears each instead of
   * `onCommand`. Their bytes are checksummed all the same. Never passed
   * over: SELECT, MULTI, EXEC and FLUSHALL (their meaning reaches past
   * their own record and database), nor anything inside MULTI .. EXEC.
   */
  passOver?: {
    before(db: number, offset: number): boolean;
    onPassed(db: number, offset: number): void;
  };
}

export interface ReadAofResult {
  commands: number;
  /** Bytes of whole records: where a torn tail starts, else the file size. */
  validBytes: number;
  fileBytes: number;
  /** A record the file ends in the middle of (or zero-filled bytes): where and why. */
  torn: { offset: number; bytes: number; reason: string } | null;
  /** Database in effect at the end. */
  db: number;
  /** Where the bytes after the last `#CRC:` line start (0: the file has none). */
  checkedBytes: number;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Room ahead of each slice read for the end of the record the slice before ended inside. */
const SLICE_ROOM = 64 << 10;

interface Slice {
  /** SLICE_ROOM bytes of room, then the bytes read. */
  bytes: Buffer;
  got: number;
  want: number;
}

/**
 * Reads up to `slice` bytes at `at` (fewer at the file's end) after
 * SLICE_ROOM bytes of room. A read still in flight when the reader stops
 * (a torn end, damage) is not awaited: its failure is not unhandled.
 */
function readSlice(
  handle: AofFileHandle,
  at: number,
  slice: number,
  fileBytes: number,
): Promise<Slice> {
  const p = readSliceNow(handle, at, slice, fileBytes);
  p.catch(() => undefined);
  return p;
}

async function readSliceNow(
  handle: AofFileHandle,
  at: number,
  slice: number,
  fileBytes: number,
): Promise<Slice> {
  const want = Math.min(slice, fileBytes - at);
  const bytes = Buffer.allocUnsafe(SLICE_ROOM + want);
  let got = 0;
  while (got < want) {
    const n = await handle.read(bytes.subarray(SLICE_ROOM + got), at + got);
    if (n <= 0) break;
    got += n;
  }
  return { bytes, got, want };
}

/**
 * Reads one AOF file in slices: each complete record goes to `onCommand`
 * (SELECT records switch the database); an incomplete record at the end, or
 * an end of zero bytes (a file extended but never written, after a crash),
 * is reported as `torn` and not applied. Anything else that is not a
 * command throws ERR_AOF_CORRUPT with its offset. So does a `#CRC:` line
 * whose crc32 is not that of the bytes since the previous one (or the
 * file's start): a byte changed that still parses (a flipped bit in a
 * value), found once the commands before the line were applied; the caller
 * then refuses to start, as for any other damage.
 */
export async function readAofFile(
  handle: AofFileHandle,
  options: ReadAofOptions,
): Promise<ReadAofResult> {
  const slice = options.sliceBytes ?? 1 << 20;
  const fileBytes = await handle.size();
  let db = options.db ?? 0;
  let commands = 0;
  let carry: Buffer = Buffer.alloc(0);
  /** File offset of carry[0]. */
  let base = 0;
  let readAt = 0;
  /** crc32 of the records since the last `#CRC:` line, and where they start. */
  let crc = 0;
  let checkedBytes = 0;
  const passOver = options.passOver;
  const span: CommandSpan = { argc: 0, nameStart: 0, nameEnd: 0 };
  /** Between a MULTI and its EXEC (nothing there is passed over). */
  let inTransaction = false;
  // Each slice is read while the one before is parsed, into a buffer with
  // room ahead of it for the record that slice ends inside (so the two join
  // without copying the slice; a record longer than the room is joined by
  // a copy).
  let reading: Promise<Slice> | null =
    readAt < fileBytes ? readSlice(handle, readAt, slice, fileBytes) : null;
  while (reading !== null) {
    const { bytes: chunk, got, want } = await reading;
    readAt += got;
    reading =
      got === want && readAt < fileBytes ? readSlice(handle, readAt, slice, fileBytes) : null;
    let buf: Buffer;
    if (carry.length === 0) buf = chunk.subarray(SLICE_ROOM, SLICE_ROOM + got);
    else if (carry.length <= SLICE_ROOM) {
      carry.copy(chunk, SLICE_ROOM - carry.length);
      buf = chunk.subarray(SLICE_ROOM - carry.length, SLICE_ROOM + got);
    } else buf = Buffer.concat([carry, chunk.subarray(SLICE_ROOM, SLICE_ROOM + got)]);
    let pos = 0;
    /** Start of the SELECT before the current command, so positions include it. */
    let recordStart = -1;
    /** Start of the run of records passed over up to `pos`, not yet summed (-1: none). */
    let passedFrom = -1;
    const sumPassed = () => {
      if (passedFrom < 0) return;
      crc = crc32(buf.subarray(passedFrom, pos), crc);
      passedFrom = -1;
    };
    for (;;) {
      if (passOver !== undefined && !inTransaction) {
        const end = commandRecordEnd(buf, pos, span);
        if (end === RECORD_INCOMPLETE) break;
        if (end >= 0 && !keptName(buf, span)) {
          const offset = base + (recordStart >= 0 ? recordStart : pos);
          if (passOver.before(db, offset)) {
            if (passedFrom < 0) passedFrom = recordStart >= 0 ? recordStart : pos;
            passOver.onPassed(db, offset);
            commands++;
            recordStart = -1;
            pos = end;
            continue;
          }
        }
      }
      sumPassed();
      const r = parseCommandRecord(buf, pos);
      if (r.kind === 'incomplete') break;
      if (r.kind === 'invalid') {
        const offset = base + (recordStart >= 0 ? recordStart : pos);
        if (await tornWithZeros(handle, base + pos, fileBytes)) {
          return {
            commands,
            validBytes: offset,
            fileBytes,
            torn: { offset, bytes: fileBytes - offset, reason: 'zero-filled tail' },
            db,
            checkedBytes,
          };
        }
        // A zero where a record starts: blocks never written. In a file
        // whose end is preallocated (its size was durable before its data)
        // a power loss can leave such a hole with later blocks written
        // after it: nothing from the hole on was known durable (a sync
        // covers every byte before it), so it is a torn end, not damage.
        // Such a hole ends where a sector starts (the disk writes whole
        // ones). Zeros that end anywhere else with whole records after
        // them were written over data: damage, which must not cut those
        // records off. Without records after them (stray bytes in the
        // zeros kept ahead of the data) nothing there was ever written.
        if (buf[pos] === 0 && (await unwrittenFrom(handle, base + pos, fileBytes))) {
          return {
            commands,
            validBytes: offset,
            fileBytes,
            torn: { offset, bytes: fileBytes - offset, reason: 'unwritten blocks before the end' },
            db,
            checkedBytes,
          };
        }
        throw new AofError('ERR_AOF_CORRUPT', `bad record at offset ${base + pos}: ${r.reason}`, {
          address: base + pos,
        });
      }
      if (r.kind === 'annotation') {
        const sum = checksumOf(r.text);
        if (sum === null) {
          if (recordStart < 0) crc = crc32(buf.subarray(pos, r.end), crc);
          options.onAnnotation?.(r.text, base + pos);
        } else {
          if (sum !== crc) {
            throw new AofError(
              'ERR_AOF_CORRUPT',
              `checksum mismatch: the bytes from offset ${checkedBytes} to ${base + pos} are not ` +
                `the ones written (the #CRC line at offset ${base + pos} says ${sum}, they sum to ${crc})`,
              { address: checkedBytes },
            );
          }
          crc = 0;
          checkedBytes = base + r.end;
          options.onChecked?.(checkedBytes);
        }
        pos = r.end;
        continue;
      }
      const argv = r.argv;
      if (isSelect(argv)) {
        const n = Number(argv[1]!.toString('latin1'));
        if (!Number.isInteger(n) || n < 0) {
          throw new AofError('ERR_AOF_CORRUPT', `bad SELECT at offset ${base + pos}`, {
            address: base + pos,
          });
        }
        db = n;
        recordStart = pos;
        pos = r.end;
        continue;
      }
      const verb = transactionVerb(argv);
      if (verb !== null) inTransaction = verb === 'multi';
      crc = crc32(buf.subarray(recordStart >= 0 ? recordStart : pos, r.end), crc);
      const p = options.onCommand(db, argv, base + (recordStart >= 0 ? recordStart : pos));
      if (p !== undefined) await p;
      commands++;
      recordStart = -1;
      pos = r.end;
    }
    sumPassed();
    const keepFrom = recordStart >= 0 ? recordStart : pos;
    carry = buf.subarray(keepFrom);
    base += keepFrom;
    if (got < want) {
      // The file ended early (cut while read): nothing more to read.
      reading = null;
      break;
    }
    await yieldToLoop();
  }
  if (carry.length > 0) {
    const reason =
      (await zeroRunEnd(handle, base, fileBytes)) === fileBytes
        ? 'zero-filled tail'
        : 'incomplete record at the end';
    return {
      commands,
      validBytes: base,
      fileBytes,
      torn: { offset: base, bytes: fileBytes - base, reason },
      db,
      checkedBytes,
    };
  }
  return { commands, validBytes: base, fileBytes, torn: null, db, checkedBytes };
}

/** The checksum a `#CRC:<n>` annotation holds, or null for any other annotation. */
function checksumOf(text: Buffer): number | null {
  if (text.length <= CRC_LABEL.length || !text.subarray(0, CRC_LABEL.length).equals(CRC_LABEL))
    return null;
  const n = Number(text.subarray(CRC_LABEL.length).toString('latin1'));
  // Not a number: the line was damaged; a sum no crc32 has fails the check.
  return Number.isInteger(n) ? n : -1;
}

/** Commands never passed over (see ReadAofOptions.passOver). */
const KEPT = ['SELECT', 'MULTI', 'EXEC', 'FLUSHALL'].map((n) => Buffer.from(n));

function keptName(buf: Buffer, span: CommandSpan): boolean {
  const length = span.nameEnd - span.nameStart;
  for (const name of KEPT) {
    if (name.length === length && sameLetters(buf, name, span.nameStart)) return true;
  }
  return false;
}

function isSelect(argv: Buffer[]): boolean {
  if (argv.length !== 2) return false;
  const a = argv[0]!;
  return a.length === 6 && a.toString('latin1').toUpperCase() === 'SELECT';
}

/**
 * A record at `from` that parses as invalid is torn when the file ends in
 * zeros (extended before its data reached the disk) and what comes before
 * them is the start of a record: a crash, not corruption.
 */
async function tornWithZeros(handle: AofFileHandle, from: number, end: number): Promise<boolean> {
  const limit = Math.min(end - from, 64 << 20);
  if (end - from > limit) return false;
  const rest = Buffer.allocUnsafe(limit);
  let got = 0;
  while (got < limit) {
    const n = await handle.read(rest.subarray(got), from + got);
    if (n <= 0) break;
    got += n;
  }
  let last = got - 1;
  while (last >= 0 && rest[last] === 0) last--;
  if (last === got - 1) return false; // no zeros at the end
  return last < 0 || parseCommandRecord(rest.subarray(0, last + 1), 0).kind === 'incomplete';
}

/** The disk's write unit: a torn write leaves whole sectors old or new. */
const SECTOR = 512;

/**
 * Whether the zeros at `from` (where a record starts) begin what was never
 * written: they end where a sector starts, or no whole record follows them.
 */
async function unwrittenFrom(handle: AofFileHandle, from: number, end: number): Promise<boolean> {
  const runEnd = await zeroRunEnd(handle, from, end);
  if (runEnd === end || runEnd % SECTOR === 0) return true;
  if (end - runEnd > SCAN_LIMIT) return false;
  const rest = Buffer.allocUnsafe(end - runEnd);
  let got = 0;
  while (got < rest.length) {
    const n = await handle.read(rest.subarray(got), runEnd + got);
    if (n <= 0) break;
    got += n;
  }
  const bytes = rest.subarray(0, got);
  for (let i = bytes.indexOf(STAR); i >= 0; i = bytes.indexOf(STAR, i + 1)) {
    if (parseCommandRecord(bytes, i).kind === 'command') return false;
  }
  return true;
}

const STAR = 0x2a;
/** The most bytes past a hole searched for a record (the zeros kept ahead are 1 MiB). */
const SCAN_LIMIT = 64 << 20;

/** Where the run of zero bytes starting at `from` ends (the file's end if it runs to it). */
async function zeroRunEnd(handle: AofFileHandle, from: number, end: number): Promise<number> {
  const buf = Buffer.allocUnsafe(64 * 1024);
  for (let at = from; at < end; ) {
    const n = await handle.read(buf.subarray(0, Math.min(buf.length, end - at)), at);
    if (n <= 0) return at;
    for (let i = 0; i < n; i++) if (buf[i] !== 0) return at + i;
    at += n;
  }
  return end;
}
