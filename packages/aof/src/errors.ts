import { StrataError, type StrataErrorDetails } from '@strata/io';

/**
 * Codes of the append-only file:
 * - ERR_AOF_CORRUPT: a record that is not a valid command, before the end of a file
 *   (a torn record at the end of the last file is cut off instead)
 * - ERR_AOF_TRUNCATED: the last file ends inside a record, and the replay
 *   was told not to cut it off (Redis's aof-load-truncated no)
 * - ERR_AOF_MANIFEST: the manifest is unreadable or names a file that is missing
 * - ERR_AOF_WRITE: writing or syncing the file failed (the cause is the OS error)
 * - ERR_AOF_CLOSED: an append after close()
 * - ERR_INVALID_ARGUMENT (io's): a call out of order (append before replay...)
 */
export type AofErrorCode =
  | 'ERR_AOF_CORRUPT'
  | 'ERR_AOF_TRUNCATED'
  | 'ERR_AOF_MANIFEST'
  | 'ERR_AOF_WRITE'
  | 'ERR_AOF_CLOSED'
  | 'ERR_INVALID_ARGUMENT';

/** What an ERR_AOF_WRITE failed at: putting bytes in the file, or making them durable. */
export type AofOperation = 'write' | 'fsync';

export interface AofErrorDetails extends StrataErrorDetails {
  operation?: AofOperation;
}

export class AofError extends StrataError<AofErrorCode> {
  /** The OS error's code (`ENOSPC`, `EIO`...) when the OS refused, else undefined (a short write). */
  readonly osCode: string | undefined;
  /** ERR_AOF_WRITE: whether the write or the fsync failed. */
  readonly operation: AofOperation | undefined;

  constructor(code: AofErrorCode, message: string, details: AofErrorDetails = {}) {
    super(code, message, details);
    this.operation = details.operation;
    const os = (details.cause as NodeJS.ErrnoException | null | undefined)?.code;
    this.osCode = typeof os === 'string' ? os : undefined;
  }
}

const STRERROR: Record<string, string> = {
  ENOSPC: 'No space left on device',
  EIO: 'Input/output error',
  EDQUOT: 'Disk quota exceeded',
  EROFS: 'Read-only file system',
  EBADF: 'Bad file descriptor',
  EFBIG: 'File too large',
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
};

/**
 * An OS error as Redis reports it (strerror: `No space left on device`),
 * so MISCONF replies read as Redis's; other errors by their message.
 */
export function describeError(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  const known = code !== undefined ? STRERROR[code] : undefined;
  if (known !== undefined) return known;
  return e instanceof Error ? e.message : String(e);
}
