/**
 * SORT's BY and GET patterns, parsed once per command rather than once per
 * element. Redis's lookupKeyByPattern reads a pattern as a C string (its
 * strchr and strstr stop at a NUL byte) but copies the parts with the
 * argument's whole length; so does this.
 */

/** A pattern naming a key per element: prefix, the element, suffix; a hash field after `->`. */
export interface KeyPattern {
  readonly kind: 'key';
  readonly prefix: string;
  readonly suffix: string;
  /** `*->field`: the field of the hash at the key; null: the string at the key. */
  readonly field: string | null;
}

/**
 * A GET pattern: `#` (the element itself), no `*` (a fixed key: Redis
 * answers nil, it makes no sense to GET), or a key per element.
 */
export type GetPattern = { readonly kind: 'self' } | { readonly kind: 'none' } | KeyPattern;

/** The argument up to its first NUL byte, as C's string functions see it. */
function cString(s: string): string {
  const nul = s.indexOf('\0');
  return nul === -1 ? s : s.slice(0, nul);
}

/** Whether a BY pattern has a `*`: without one nothing is looked up nor sorted (`BY nosort`). */
export function hasStar(arg: Buffer): boolean {
  const nul = arg.indexOf(0);
  const star = arg.indexOf(0x2a);
  return star !== -1 && (nul === -1 || star < nul);
}

/** A pattern with a `*` (see hasStar) as the key it names for each element. */
export function keyPattern(arg: Buffer): KeyPattern {
  const s = arg.toString('latin1');
  const c = cString(s);
  const star = c.indexOf('*');
  const arrow = c.indexOf('->', star + 1);
  // `->` with nothing after it is part of the key's name.
  if (arrow !== -1 && arrow + 2 < c.length) {
    return {
      kind: 'key',
      prefix: s.slice(0, star),
      suffix: s.slice(star + 1, arrow),
      field: s.slice(arrow + 2),
    };
  }
  return { kind: 'key', prefix: s.slice(0, star), suffix: s.slice(star + 1), field: null };
}

export function getPattern(arg: Buffer): GetPattern {
  if (arg.length > 0 && arg[0] === 0x23 && (arg.length === 1 || arg[1] === 0)) {
    return { kind: 'self' };
  }
  return hasStar(arg) ? keyPattern(arg) : { kind: 'none' };
}

/** The key `p` names for `element` (latin1 strings: bytes as they are). */
export function patternKey(p: KeyPattern, element: string): Buffer {
  return Buffer.from(p.prefix + element + p.suffix, 'latin1');
}
