import {
  isInternalKey,
  keyLengthOf,
  keyOffsetOf,
  type RecordSpace,
  RecordType,
  typeOf,
} from '@strata/hlog';
import { compileGlob, type GlobMatcher } from './glob-matcher.js';
import { ScanError } from './scan-error.js';

/**
 * Filters of SCAN / KEYS, compiled once per call and run on the raw record
 * inside the visitor: the type byte compared as an integer, then the glob on
 * the key bytes in place. Nothing is allocated for a record that fails.
 */

export interface FilterOptions {
  /** Glob (Redis semantics), as bytes or a UTF-8 string. */
  match?: Uint8Array | string;
  /** Redis type name (SCAN TYPE), case-insensitive. */
  type?: string;
  nocase?: boolean;
}

/** The type filter: any type, one type code, or a type no record can have yet. */
export type TypeFilter =
  | { readonly kind: 'any' }
  | { readonly kind: 'code'; readonly code: number }
  | { readonly kind: 'none' };

export interface RecordFilter {
  readonly type: TypeFilter;
  /** -1 for any; else the record type byte to accept (hot-path copy of `type`). */
  readonly typeCode: number;
  /** null when every key matches. */
  readonly glob: GlobMatcher | null;
}

/** Redis's type names and hlog's record type codes. */
const TYPE_CODES: ReadonlyMap<string, number | null> = new Map([
  ['string', RecordType.STRING],
  ['hash', RecordType.HASH],
  ['set', RecordType.SET],
  ['zset', RecordType.ZSET],
  ['list', RecordType.LIST],
  ['stream', RecordType.STREAM],
]);

/** Compiles the filters; throws ERR_UNKNOWN_TYPE before any work is done. */
export function compileFilter(options: FilterOptions = {}): RecordFilter {
  let type: TypeFilter = { kind: 'any' };
  if (options.type !== undefined) {
    const code = TYPE_CODES.get(options.type.toLowerCase());
    if (code === undefined) {
      throw new ScanError('ERR_UNKNOWN_TYPE', `unknown type name '${options.type}'`);
    }
    type = code === null ? { kind: 'none' } : { kind: 'code', code };
  }
  let glob: GlobMatcher | null = null;
  if (options.match !== undefined) {
    const pattern =
      typeof options.match === 'string' ? Buffer.from(options.match, 'utf8') : options.match;
    const m = compileGlob(pattern, { nocase: options.nocase ?? false });
    glob = m.matchesAll ? null : m;
  }
  return { type, typeCode: type.kind === 'code' ? type.code : -1, glob };
}

/**
 * Does the record at `rec[off]` pass the type and key filters? Strata's own
 * records (internal keys: a stream's blocks) pass none: they are no user's
 * keys. (The live walker inlines the same test.)
 */
export function acceptsRecord(filter: RecordFilter, rec: RecordSpace, off: number): boolean {
  if (filter.typeCode >= 0 && typeOf(rec, off) !== filter.typeCode) return false;
  const ko = keyOffsetOf(rec, off);
  const kl = keyLengthOf(rec, off);
  if (isInternalKey(rec.bytes, ko, kl)) return false;
  const glob = filter.glob;
  return glob === null || glob.match(rec.bytes, ko, ko + kl);
}
