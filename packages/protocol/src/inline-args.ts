const BACKSLASH = 0x5c;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;

/** C's isspace() in the "C" locale: space, \t, \n, \v, \f, \r. */
function isSpace(b: number): boolean {
  return b === 0x20 || (b >= 0x09 && b <= 0x0d);
}

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x61 + 10;
  if (b >= 0x41 && b <= 0x46) return b - 0x41 + 10;
  return -1;
}

/** The byte a `\x` escape inside double quotes stands for. */
function unescapeByte(b: number): number {
  switch (b) {
    case 0x6e: // n
      return 0x0a;
    case 0x72: // r
      return 0x0d;
    case 0x74: // t
      return 0x09;
    case 0x62: // b
      return 0x08;
    case 0x61: // a
      return 0x07;
    default:
      return b;
  }
}

/**
 * Redis's `sdssplitargs()` (src/sds.c) over `line[start, end)`: how an inline
 * command (`SET k "a b"`) becomes arguments. Tokens are separated by blanks;
 * `"..."` takes \n \r \t \b \a \xHH and \<any> escapes, `'...'` only \'; a
 * closing quote must be followed by a blank or the end of the line. Returns
 * null where Redis reports unbalanced quotes.
 *
 * A token without quotes is a view into `line` unless `copy` is set (the
 * caller's line lives in a buffer it reuses); a quoted token is always built.
 */
export function splitInlineArgs(
  line: Buffer,
  start: number,
  end: number,
  copy: boolean,
): Buffer[] | null {
  // sdssplitargs reads a C string: past the end there is a 0 byte.
  const at = (k: number): number => (k < end ? line[k]! : 0);
  const args: Buffer[] = [];
  let p = start;
  for (;;) {
    while (p < end && isSpace(line[p]!)) p++;
    // The end of the line, or a 0 byte, which ends a C string as well.
    if (at(p) === 0) return args;

    const tokenStart = p;
    let tokenEnd = p;
    let inDouble = false;
    let inSingle = false;
    let built: number[] | null = null;
    let done = false;
    while (!done) {
      const c = at(p);
      if (inDouble) {
        const h1 = hexValue(at(p + 2));
        const h2 = hexValue(at(p + 3));
        if (c === BACKSLASH && at(p + 1) === 0x78 && h1 >= 0 && h2 >= 0) {
          built!.push(h1 * 16 + h2);
          p += 3;
        } else if (c === BACKSLASH && at(p + 1) !== 0) {
          p++;
          built!.push(unescapeByte(at(p)));
        } else if (c === DOUBLE_QUOTE) {
          if (at(p + 1) !== 0 && !isSpace(at(p + 1))) return null;
          done = true;
        } else if (c === 0) {
          return null;
        } else {
          built!.push(c);
        }
      } else if (inSingle) {
        if (c === BACKSLASH && at(p + 1) === SINGLE_QUOTE) {
          p++;
          built!.push(SINGLE_QUOTE);
        } else if (c === SINGLE_QUOTE) {
          if (at(p + 1) !== 0 && !isSpace(at(p + 1))) return null;
          done = true;
        } else if (c === 0) {
          return null;
        } else {
          built!.push(c);
        }
      } else {
        switch (c) {
          // Only these end a bare token; \v and \f do not (they are still
          // skipped as blanks between tokens).
          case 0x20:
          case 0x0a:
          case 0x0d:
          case 0x09:
          case 0:
            tokenEnd = p;
            done = true;
            break;
          case DOUBLE_QUOTE:
          case SINGLE_QUOTE:
            // A quote may open in the middle of a token (a"b c" is `ab c`).
            built ??= Array.from(line.subarray(tokenStart, p));
            if (c === DOUBLE_QUOTE) inDouble = true;
            else inSingle = true;
            break;
          default:
            // Still a bare token: it stays a range of `line`.
            break;
        }
      }
      // As sdssplitargs: step past the byte just handled unless at the end.
      if (at(p) !== 0) p++;
    }
    if (built !== null) {
      args.push(Buffer.from(built));
    } else if (copy) {
      args.push(Buffer.from(line.subarray(tokenStart, tokenEnd)));
    } else {
      args.push(line.subarray(tokenStart, tokenEnd));
    }
  }
}
