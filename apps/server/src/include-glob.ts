import { join } from 'node:path';

/** What expanding a pattern reads. */
export interface GlobFiles {
  readdir(path: string): Promise<string[]>;
  exists(path: string): Promise<boolean>;
}

/** Redis expands an include with one of these through glob(3). */
export function hasWildcard(path: string): boolean {
  return /[*?[]/.test(path);
}

/** One path segment's pattern as a regular expression: `*`, `?`, `[a-z]`, `[!x]`, `\` escapes. */
function segmentRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '\\' && i + 1 < pattern.length) re += escapeChar(pattern[++i]!);
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end === -1) {
        re += '\\[';
        continue;
      }
      let body = pattern.slice(i + 1, end);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      re += `[${negate ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else re += escapeChar(c);
  }
  return new RegExp(`^${re}$`);
}

const escapeChar = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * The existing paths that match `pattern`, sorted, as glob(3) with no
 * flags lists them: wildcards never match `/`, nor a leading `.` unless
 * the pattern has one. No match: none (Redis then skips the include).
 */
export async function expandGlob(pattern: string, files: GlobFiles): Promise<string[]> {
  const absolute = pattern.startsWith('/');
  let paths = [absolute ? '/' : ''];
  for (const segment of pattern.split('/').filter((s) => s !== '')) {
    if (!hasWildcard(segment)) {
      paths = paths.map((p) => (p === '' ? segment : join(p, segment)));
      continue;
    }
    const re = segmentRegExp(segment);
    const next: string[] = [];
    for (const p of paths) {
      let names: string[];
      try {
        names = await files.readdir(p === '' ? '.' : p);
      } catch {
        continue;
      }
      for (const name of names) {
        if (name.startsWith('.') && !segment.startsWith('.')) continue;
        if (re.test(name)) next.push(p === '' ? name : join(p, name));
      }
    }
    paths = next;
  }
  const found: string[] = [];
  for (const p of paths) if (await files.exists(p)) found.push(p);
  return found.sort();
}
