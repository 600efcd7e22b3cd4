import assert from 'node:assert/strict';
import { isStrataError, type StrataError, type StrataErrorCode } from '../errors.js';

/** Asserts that `promise` rejects with a StrataError of `code`, and returns the error. */
export async function rejectsWithCode(
  promise: Promise<unknown>,
  code: StrataErrorCode,
  what = 'operation',
): Promise<StrataError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(isStrataError(e), `${what}: expected a StrataError, got ${String(e)}`);
    // The check that narrows e's code to `code` (assert.equal would not).
    if (!isStrataError(e, code))
      assert.fail(`${what}: expected ${code}, got ${e.code} (${e.message})`);
    return e;
  }
  assert.fail(`${what}: expected a rejection with ${code}, but it resolved`);
}

/** Byte-exact comparison that reports the first difference instead of dumping buffers. */
export function assertBytes(actual: Uint8Array, expected: Uint8Array, what: string): void {
  assert.equal(actual.length, expected.length, `${what}: length`);
  const a = Buffer.from(actual.buffer, actual.byteOffset, actual.length);
  const b = Buffer.from(expected.buffer, expected.byteOffset, expected.length);
  if (a.equals(b)) return;
  let i = 0;
  while (a[i] === b[i]) i++;
  assert.fail(`${what}: first difference at byte ${i}: got ${a[i]}, expected ${b[i]}`);
}

/** A buffer of `length` copies of `byte`. */
export function filled(length: number, byte: number): Uint8Array {
  return new Uint8Array(length).fill(byte);
}
