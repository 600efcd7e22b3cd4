/**
 * Reads the fields of one whole reply (as ReplyWriter wrote it or
 * `replyEnd` delimited it): what a command's reply says about what it did,
 * without a full decode. The command log decides a replay form from these
 * (`SET NX` answering nil changed nothing).
 */

/** A RESP3 null, or a RESP2 null bulk or null array. */
export function isNullReply(r: Buffer): boolean {
  return r[0] === 0x5f || (r.length >= 3 && (r[0] === 0x24 || r[0] === 0x2a) && r[1] === 0x2d);
}

/** A simple string (`+OK`). */
export function isSimpleReply(r: Buffer): boolean {
  return r[0] === 0x2b;
}

/** The integer of a `:n` reply, or NaN. */
export function replyInteger(r: Buffer): number {
  if (r[0] !== 0x3a) return Number.NaN;
  let i = 1;
  let neg = false;
  if (r[1] === 0x2d) {
    neg = true;
    i = 2;
  }
  let n = 0;
  for (; i < r.length && r[i] !== 0x0d; i++) n = n * 10 + (r[i]! - 0x30);
  return neg ? -n : n;
}

/** The body of a `$len` bulk reply (or a RESP3 `,` double), or null. */
export function replyBulk(r: Buffer): Buffer | null {
  const cr = r.indexOf(0x0d);
  if (cr < 0) return null;
  if (r[0] === 0x2c) return r.subarray(1, cr);
  if (r[0] !== 0x24 || r[1] === 0x2d) return null;
  const len = Number(r.subarray(1, cr).toString('latin1'));
  return r.subarray(cr + 2, cr + 2 + len);
}

/** The bulk elements of an array / set reply (`*n` or `~n` of `$len` items), or one bulk. */
export function replyBulks(r: Buffer): Buffer[] {
  if (r[0] === 0x24) {
    const b = replyBulk(r);
    return b === null ? [] : [b];
  }
  if (r[0] !== 0x2a && r[0] !== 0x7e) return [];
  const out: Buffer[] = [];
  let at = r.indexOf(0x0d) + 2;
  while (at < r.length && r[at] === 0x24) {
    const cr = r.indexOf(0x0d, at);
    const len = Number(r.subarray(at + 1, cr).toString('latin1'));
    if (len < 0) {
      at = cr + 2;
      continue;
    }
    out.push(r.subarray(cr + 2, cr + 2 + len));
    at = cr + 4 + len;
  }
  return out;
}
