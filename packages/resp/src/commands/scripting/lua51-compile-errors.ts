/**
 * Compile errors as Lua 5.1 (Redis's Lua) words them, from fengari's Lua
 * 5.3 messages. Applied only when a chunk fails to compile, so a script
 * that compiles pays nothing.
 *
 * - 5.3 leaves `<eof>`, `<name>`, `<string>`, `<number>` unquoted where 5.1
 *   quotes every token (`'<eof>' expected near 'end'`, `near '<eof>'`);
 * - 5.3's `syntax error` (an expression statement that is not a call) is
 *   5.1's `'=' expected`: 5.1 takes any such statement for an assignment;
 * - 5.3 adds `(starting at line N)` to an unfinished long string or comment;
 * - 5.3's `decimal escape too large near ''\300''` is 5.1's `escape sequence
 *   too large near '''` (5.1 does not keep the escape's digits);
 * - a 5.1 numeral takes the letters after it (`3x`, `0xg`), so 5.1 fails
 *   with `malformed number near '3x'` where 5.3 reads `3` then a name: the
 *   chunk is scanned for the first such numeral, which 5.1 would have
 *   stopped at if it comes no later than the line 5.3 stopped at.
 */
export function lua51CompileError(code: Uint8Array, message: string): string {
  const at = /^(.*?):(\d+): /.exec(message);
  if (at !== null) {
    const bad = malformedNumeral(code);
    if (bad !== null && bad.line <= Number(at[2])) {
      return `${at[1]}:${bad.line}: malformed number near '${bad.text}'`;
    }
  }
  return (
    message
      .replace(/ near <(eof|name|string|number)>/g, " near '<$1>'")
      .replace(/<(eof|name|string|number)> expected/g, "'<$1>' expected")
      .replace(/: syntax error near /, ": '=' expected near ")
      .replace(/(unfinished long (?:string|comment)) \(starting at line \d+\)/, '$1')
      // 5.3 quotes the escape and the byte after it; 5.1 only what came before the backslash.
      .replace(
        /decimal escape too large near '(.*)\\\d{1,3}.?'$/,
        "escape sequence too large near '$1'",
      )
  );
}

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isAlpha = (c: number) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isAlnum = (c: number) => isDigit(c) || isAlpha(c) || c === 0x5f;

/** The level of a long bracket `[==[` at `i` (its `=` count), or -1. */
function longBracket(s: Uint8Array, i: number, open: number): number {
  let j = i + 1;
  while (s[j] === 0x3d) j++;
  return s[j] === open ? j - i - 1 : -1;
}

/**
 * The first numeral Lua 5.1's lexer would refuse (read_numeral: digits and
 * dots, an exponent sign, then every letter, digit and `_`; valid when C's
 * strtod reads all of it), skipping strings and comments; null when none.
 */
function malformedNumeral(s: Uint8Array): { line: number; text: string } | null {
  let line = 1;
  let i = 0;
  const n = s.length;
  // Past the end of a long bracket of `level` from `i`; counts its lines.
  const skipLong = (from: number, level: number): number => {
    let k = from;
    for (; k < n; k++) {
      if (s[k] === 0x0a) line++;
      else if (s[k] === 0x5d && longBracket(s, k, 0x5d) === level) return k + level + 2;
    }
    return n;
  };
  while (i < n) {
    const c = s[i]!;
    if (c === 0x0a) {
      line++;
      i++;
    } else if (c === 0x2d && s[i + 1] === 0x2d) {
      // A comment: long (--[[ ]]) or to the end of the line.
      const level = s[i + 2] === 0x5b ? longBracket(s, i + 2, 0x5b) : -1;
      if (level >= 0) i = skipLong(i + level + 4, level);
      else while (i < n && s[i] !== 0x0a) i++;
    } else if (c === 0x5b && longBracket(s, i, 0x5b) >= 0) {
      const level = longBracket(s, i, 0x5b);
      i = skipLong(i + level + 2, level);
    } else if (c === 0x22 || c === 0x27) {
      // A short string: to its quote, past escapes; a newline ends it (unfinished: not a numeral's matter).
      i++;
      while (i < n && s[i] !== c && s[i] !== 0x0a) {
        if (s[i] === 0x5c && i + 1 < n) {
          if (s[i + 1] === 0x0a) line++;
          i++;
        }
        i++;
      }
      i++;
    } else if (isAlpha(c) || c === 0x5f) {
      while (i < n && isAlnum(s[i]!)) i++;
    } else if (c === 0x2e && s[i + 1] === 0x2e) {
      // `..` or `...`: a dot after them does not start a numeral.
      i += s[i + 2] === 0x2e ? 3 : 2;
    } else if (isDigit(c) || (c === 0x2e && isDigit(s[i + 1] ?? 0))) {
      const start = i;
      while (i < n && (isDigit(s[i]!) || s[i] === 0x2e)) i++;
      if (s[i] === 0x45 || s[i] === 0x65) {
        i++;
        if (s[i] === 0x2b || s[i] === 0x2d) i++;
      }
      while (i < n && isAlnum(s[i]!)) i++;
      const text = Buffer.from(s.subarray(start, i)).toString('latin1');
      if (!strtodReadsAll(text)) return { line, text };
    } else {
      i++;
    }
  }
  return null;
}

/** Whether glibc's strtod reads all of `t` (a decimal or a C99 hexadecimal number). */
function strtodReadsAll(t: string): boolean {
  if (/^0[xX]/.test(t))
    return /^0[xX](?=\.?[0-9a-fA-F])[0-9a-fA-F]*\.?[0-9a-fA-F]*([pP][+-]?\d+)?$/.test(t);
  return /^(?=\.?\d)\d*\.?\d*([eE][+-]?\d+)?$/.test(t);
}
