import { replyInteger } from '@strata/protocol';
import type { PropagationRule } from '../../server/command-log.js';

/**
 * What the replay rules (a definition's `replay`) of several families share:
 * the rule of writes that may change nothing, and the forms of a new expiry.
 */

/** No form: nothing to log. */
export const NONE: Buffer[][] = [];

export const DEL = Buffer.from('DEL');
const PEXPIREAT = Buffer.from('PEXPIREAT');

/** A numeric argument. */
export function num(b: Buffer): number {
  return Number(b.toString('latin1'));
}

export const msBuffer = (ms: number): Buffer => Buffer.from(String(ms));

/** A key's new expiry: PEXPIREAT, or DEL when it is already past (Redis does the same). */
export function expireAt(key: Buffer, ms: number, now: number): Buffer[][] {
  return ms <= now ? [[DEL, key]] : [[PEXPIREAT, key, msBuffer(ms)]];
}

/** Logged as it came when the integer reply is not 0 (DEL of nothing, EXPIRE NX refused...). */
export const whenNonZero: PropagationRule = (argv, reply) =>
  replyInteger(reply) > 0 ? [argv as Buffer[]] : NONE;
