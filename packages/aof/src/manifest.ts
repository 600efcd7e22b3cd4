import { crc32 } from 'node:zlib';
import type { AofPosition } from './aof-writer.js';
import { AofError } from './errors.js';

/**
 * Where a database's checkpoint sits in the AOF: recovery loads checkpoint
 * `id` and replays that database's commands from `position` on. `mark` is
 * the store's own coordinate for the checkpoint (for an hlog store, its
 * fold-over address), kept so the store can be opened at exactly that point.
 */
export interface CheckpointEntry {
  readonly id: number;
  readonly mark: number;
  readonly position: AofPosition;
  /**
   * The newest commit point after the checkpoint: the store's log below
   * `mark` is one moment, synced, and holds exactly the commands before
   * `position` (synced here before it was recorded). Recovery that reads the
   * log up to it replays from `position`; one that cannot (the log there is
   * damaged) replays from the checkpoint's. A checkpoint's entry drops it.
   */
  readonly commit?: CommitEntry;
}

/** A database's commit point in the AOF (see `CheckpointEntry.commit`). */
export interface CommitEntry {
  readonly mark: number;
  readonly position: AofPosition;
}

/**
 * The AOF's table of contents, replaced atomically: the files in order (the
 * last one is appended to) and each database's checkpoint entry. A file not
 * listed is garbage from an interrupted rotation or cut.
 */
export interface AofManifest {
  readonly version: 1;
  readonly files: readonly number[];
  readonly nextFile: number;
  readonly databases: Readonly<Record<string, CheckpointEntry>>;
}

export function emptyManifest(): AofManifest {
  return { version: 1, files: [1], nextFile: 2, databases: {} };
}

/**
 * The manifest as JSON, with `crc`: the crc32 of the same JSON without it.
 * A flipped digit in a position or file number still reads as valid JSON;
 * the checksum is what tells it from the manifest that was written.
 */
export function encodeManifest(m: AofManifest): Buffer {
  const { version, files, nextFile, databases } = m;
  const body = { version, files, nextFile, databases };
  return Buffer.from(
    `${JSON.stringify({ ...body, crc: crc32(JSON.stringify(body, null, 1)) }, null, 1)}\n`,
  );
}

/** A decoded `{ mark, position }` is well formed (a checkpoint's entry or its commit point). */
function isPoint(e: Partial<CommitEntry>): boolean {
  return (
    typeof e.mark === 'number' &&
    Number.isInteger(e.position?.file) &&
    Number.isInteger(e.position?.offset)
  );
}

/** Whether `o`'s `crc` matches the rest of it; true when it has none (written before checksums). */
function checksumMatches(o: Record<string, unknown>): boolean {
  if (!('crc' in o)) return true;
  const { crc, ...body } = o;
  return crc === crc32(JSON.stringify(body, null, 1));
}

export function decodeManifest(bytes: Buffer, path: string): AofManifest {
  let m: unknown;
  try {
    m = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    throw new AofError('ERR_AOF_MANIFEST', `${path}: not valid JSON`, { cause: e });
  }
  const o = m as Partial<AofManifest>;
  const ok =
    o !== null &&
    typeof o === 'object' &&
    o.version === 1 &&
    Array.isArray(o.files) &&
    o.files.length > 0 &&
    o.files.every((f) => Number.isInteger(f) && f > 0) &&
    Number.isInteger(o.nextFile) &&
    typeof o.databases === 'object' &&
    o.databases !== null &&
    Object.values(o.databases).every(
      (e) => Number.isInteger(e.id) && isPoint(e) && (e.commit === undefined || isPoint(e.commit)),
    );
  if (!ok) throw new AofError('ERR_AOF_MANIFEST', `${path}: not an AOF manifest`);
  if (!checksumMatches(o as Record<string, unknown>)) {
    throw new AofError(
      'ERR_AOF_MANIFEST',
      `${path}: its checksum does not match its contents (the file is damaged)`,
    );
  }
  const { version, files, nextFile, databases } = o as AofManifest;
  return { version, files, nextFile, databases };
}

/** `<name>.<n>.incr.aof`, Redis 7's name for an incremental AOF file. */
export function fileName(base: string, file: number): string {
  return `${base}.${file}.incr.aof`;
}

export function manifestName(base: string): string {
  return `${base}.manifest`;
}

/** The file number of an AOF file name of ours, or null. */
export function parseFileName(base: string, name: string): number | null {
  const prefix = `${base}.`;
  const suffix = '.incr.aof';
  if (!name.startsWith(prefix) || !name.endsWith(suffix)) return null;
  const n = Number(name.slice(prefix.length, name.length - suffix.length));
  return Number.isInteger(n) && n > 0 ? n : null;
}
