import { RecordType, type RmwFunctions } from '@strata/hlog';
import { wrongTypeError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { type HllValue, isHll } from './hll-encoding.js';
import { notHllError } from './hll-errors.js';

/**
 * A change to one HLL key, run inside the store's read-modify-write so that
 * the read, the check and the write are one step (no other client's write
 * between them, even when the record comes from the disk). Either function
 * may throw a CommandError: nothing is written then. Both may run more than
 * once (a pending operation runs again), so they start over each time.
 */
export interface HllEdit {
  /** The value for a missing key, or null to leave it missing. */
  create(): HllValue | null;
  /**
   * The new value for the key's string value at `b[off, off + len)`, which
   * is a valid HLL header (see isHll), or null to leave it as it is.
   */
  update(b: Uint8Array, off: number, len: number): HllValue | null;
}

interface EditContext {
  edit: HllEdit;
  result: HllValue | null;
}

const hllFunctions: RmwFunctions<EditContext> = {
  recordType: RecordType.STRING,
  initialLength(ctx) {
    ctx.result = ctx.edit.create();
    return ctx.result === null ? -1 : ctx.result.length;
  },
  initialValue(ctx, dst, off) {
    dst.set(ctx.result!.view(), off);
  },
  updatedLength(ctx, old, off, len) {
    if (!isHll(old, off, len)) throw notHllError();
    ctx.result = ctx.edit.update(old, off, len);
    return ctx.result === null ? -1 : ctx.result.length;
  },
  update(ctx, _old, _oo, _ol, dst, off) {
    // From the edit's own copy: in place, `dst` is the old value.
    dst.set(ctx.result!.view(), off);
  },
};

/** How an edit ended: `found` when the key held an HLL, `created` when the edit made it. */
export interface EditOutcome {
  readonly found: boolean;
  readonly created: boolean;
}

/**
 * Runs `edit` on `key` (the standard WRONGTYPE for a key of another type, as
 * Redis's checkType; `Key is not a valid HyperLogLog` for another string).
 */
export function editHll(c: Client, key: Buffer, edit: HllEdit): EditOutcome | Promise<EditOutcome> {
  const ctx: EditContext = { edit, result: null };
  const v = c.store.readModifyWrite(key, hllFunctions, ctx);
  if (v.status === 'pending') {
    return v.pending.then((r) => {
      if (r.status === 'wrongType') throw wrongTypeError();
      const created = r.status === 'ok' && r.created;
      return { found: r.status === 'ok' && !created, created };
    });
  }
  if (v.status === 'wrongType') throw wrongTypeError();
  const created = v.status === 'ok' && v.created;
  return { found: v.status === 'ok' && !created, created };
}

/** `f` of a value now, or once its promise settles: a handler's result. */
export function after<T>(v: T | Promise<T>, f: (v: T) => void): CommandResult {
  if (v instanceof Promise) return v.then(f);
  f(v);
  return undefined;
}

/** As `after`, for an `f` that may go on to the disk itself. */
export function chain<T>(v: T | Promise<T>, f: (v: T) => CommandResult): CommandResult {
  if (v instanceof Promise) return v.then(f);
  return f(v);
}
