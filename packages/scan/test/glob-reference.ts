/**
 * A line-by-line port of Redis's recursive `stringmatchlen_impl()` (src/util.c,
 * Redis 7+), used by the tests as the oracle for the compiled matcher. It is
 * deliberately not optimised: it keeps Redis's recursion, its
 * `skipLongerMatches` shortcut and its nesting limit, and reads the byte past
 * the end of the pattern as 0, as C reads the sds terminator.
 */
export function redisStringMatchLen(
  pattern: Uint8Array,
  key: Uint8Array,
  nocase: boolean,
): boolean {
  const skipLongerMatches = { value: false };
  return impl(pattern, 0, pattern.length, key, 0, key.length, nocase, skipLongerMatches, 0);
}

function lower(b: number): number {
  return b >= 0x41 && b <= 0x5a ? b + 32 : b;
}

function impl(
  pat: Uint8Array,
  p: number,
  patternLen: number,
  str: Uint8Array,
  s: number,
  stringLen: number,
  nocase: boolean,
  skipLongerMatches: { value: boolean },
  nesting: number,
): boolean {
  const pc = (k: number): number => (k < pat.length ? pat[k]! : 0);
  if (nesting > 1000) return false;

  while (patternLen > 0 && stringLen > 0) {
    switch (pc(p)) {
      case 0x2a: {
        // '*'
        while (patternLen > 0 && pc(p + 1) === 0x2a) {
          p++;
          patternLen--;
        }
        if (patternLen === 1) return true;
        while (stringLen > 0) {
          if (
            impl(
              pat,
              p + 1,
              patternLen - 1,
              str,
              s,
              stringLen,
              nocase,
              skipLongerMatches,
              nesting + 1,
            )
          ) {
            return true;
          }
          if (skipLongerMatches.value) return false;
          s++;
          stringLen--;
        }
        skipLongerMatches.value = true;
        return false;
      }
      case 0x3f: // '?'
        s++;
        stringLen--;
        break;
      case 0x5b: {
        // '['
        p++;
        patternLen--;
        const not = pc(p) === 0x5e;
        if (not) {
          p++;
          patternLen--;
        }
        let match = false;
        for (;;) {
          if (pc(p) === 0x5c && patternLen >= 2) {
            p++;
            patternLen--;
            if (pc(p) === str[s]) match = true;
          } else if (pc(p) === 0x5d) {
            break;
          } else if (patternLen === 0) {
            p--;
            patternLen++;
            break;
          } else if (patternLen >= 3 && pc(p + 1) === 0x2d) {
            let start = pc(p);
            let end = pc(p + 2);
            let c = str[s]!;
            if (start > end) {
              const t = start;
              start = end;
              end = t;
            }
            if (nocase) {
              start = lower(start);
              end = lower(end);
              c = lower(c);
            }
            p += 2;
            patternLen -= 2;
            if (c >= start && c <= end) match = true;
          } else if (!nocase) {
            if (pc(p) === str[s]) match = true;
          } else if (lower(pc(p)) === lower(str[s]!)) {
            match = true;
          }
          p++;
          patternLen--;
        }
        if (not) match = !match;
        if (!match) return false;
        s++;
        stringLen--;
        break;
      }
      default:
        // Redis's case '\\' falls through to here after skipping the backslash.
        if (pc(p) === 0x5c && patternLen >= 2) {
          p++;
          patternLen--;
        }
        if (!nocase) {
          if (pc(p) !== str[s]) return false;
        } else if (lower(pc(p)) !== lower(str[s]!)) {
          return false;
        }
        s++;
        stringLen--;
        break;
    }
    p++;
    patternLen--;
    if (stringLen === 0) {
      while (pc(p) === 0x2a) {
        p++;
        patternLen--;
      }
      break;
    }
  }
  return patternLen === 0 && stringLen === 0;
}
