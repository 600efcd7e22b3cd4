/**
 * A byte offset in a device's flat address space. Plain numbers (exact below
 * 2^53; Strata keeps them below 2^48 so 16 bits stay free for tags) keep
 * address arithmetic allocation-free on hot paths.
 */
export type Address = number;

/** A length or size in bytes. */
export type ByteCount = number;

/** The largest address a device accepts (exclusive). */
export const MAX_ADDRESS: Address = 2 ** 48;

export function isPowerOfTwo(n: number): boolean {
  return Number.isInteger(n) && n > 0 && 2 ** Math.round(Math.log2(n)) === n;
}
