/// <reference path="./fengari.d.ts" />
import { lobject, lstring } from './lua-module.js';

/**
 * Lua 5.1's numbers in fengari (Lua 5.3). Redis embeds Lua 5.1, where every
 * number is a double; fengari has 5.3's integers, and 32-bit ones, so
 * `tonumber(ARGV[1]) * 1000` of a timestamp in seconds would wrap. Two
 * patches of fengari's number/string conversions, applied once per process
 * (strata is fengari's only user here), give scripts 5.1's behaviour:
 *
 * - every number read from text (a literal, `tonumber`, a string in
 *   arithmetic) is a float, so arithmetic on them never wraps; integers
 *   remain only where a library counts (`#t`, `string.len`);
 * - numbers print as 5.1 prints them (`%.14g`: `3`, not 5.3's `3.0`), in
 *   `tostring`, `..` and `lua_tolstring` alike.
 */
// Imported statically, so a bundler patches the very modules fengari's own code uses.

let patched = false;

export function useLua51Numbers(): void {
  if (patched) return;
  patched = true;
  const str2num = lobject.luaO_str2num;
  lobject.luaO_str2num = (s, o) => {
    const n = str2num(s, o);
    if (n !== 0 && o.ttisinteger()) {
      // 5.3 wraps a hex integer that overflows (0x100000000 is 0 in 32 bits); 5.1 reads it as a double.
      const hex = /^\s*(-?)0[xX]([0-9a-fA-F]+)\s*$/.exec(
        Buffer.from(s.subarray(0, n - 1)).toString('latin1'),
      );
      const v = hex === null ? o.value : Number(BigInt(`0x${hex[2]}`)) * (hex[1] === '-' ? -1 : 1);
      o.setfltvalue(v);
    }
    return n;
  };
  const encoder = new TextEncoder();
  lobject.luaO_tostring = (L, obj) => {
    const text = obj.ttisinteger() ? String(obj.value) : formatNumber(obj.value);
    obj.setsvalue(lstring.luaS_bless(L, encoder.encode(text)));
  };
}

const NAN_VIEW = new DataView(new ArrayBuffer(8));

/**
 * Lua 5.1's `%.14g` (LUA_NUMBER_FMT) as C prints it (fengari's own prints
 * 2^53 as `9007199254741000`, C as `9.007199254741e+15`). A NaN prints
 * its sign as glibc does: x86 makes 0/0 a negative NaN (`-nan`, what Redis
 * prints for it) and V8 keeps the bits of the NaNs arithmetic makes, while
 * `-(0/0)` or a NaN read by cmsgpack may be positive (`nan`).
 */
export function formatNumber(n: number): string {
  if (Number.isNaN(n)) {
    NAN_VIEW.setFloat64(0, n);
    return (NAN_VIEW.getUint8(0) & 0x80) !== 0 ? '-nan' : 'nan';
  }
  if (n === Infinity) return 'inf';
  if (n === -Infinity) return '-inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa, exp] = n.toExponential(13).split('e') as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 14) {
    const m = mantissa.includes('.') ? mantissa.replace(/\.?0+$/, '') : mantissa;
    return `${m}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  const fixed = n.toFixed(13 - e);
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}
