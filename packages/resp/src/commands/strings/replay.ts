import { isNullReply, isSimpleReply, replyBulk, replyInteger } from '@strata/protocol';
import { eqi } from '../../args.js';
import type { PropagationRule } from '../../server/command-log.js';
import { DEL, expireAt, msBuffer, NONE, num } from '../shared/replay-rules.js';

/**
 * The string commands' replay rules (their definitions' `replay`): relative
 * expiries made absolute, what depended on the value written out, no-op
 * writes left out.
 */

const SET = Buffer.from('SET');
const MSET = Buffer.from('MSET');
const PXAT = Buffer.from('PXAT');
const KEEPTTL = Buffer.from('KEEPTTL');
const PERSIST = Buffer.from('PERSIST');

/** An absolute expiry (ms) from an option and its argument. */
function absoluteMs(unit: Buffer, arg: Buffer, now: number): number {
  const v = num(arg);
  if (eqi(unit, 'ex')) return now + v * 1000;
  if (eqi(unit, 'px')) return now + v;
  if (eqi(unit, 'exat')) return v * 1000;
  return v; // pxat
}

/** SET: logged when it wrote; NX/XX/GET dropped, the expiry as PXAT or KEEPTTL. */
export const setReplay: PropagationRule = (argv, reply, now) => {
  let nx = false;
  let xx = false;
  let get = false;
  let keepTtl = false;
  let at = 0;
  for (let i = 3; i < argv.length; i++) {
    const a = argv[i]!;
    if (eqi(a, 'nx')) nx = true;
    else if (eqi(a, 'xx')) xx = true;
    else if (eqi(a, 'get')) get = true;
    else if (eqi(a, 'keepttl')) keepTtl = true;
    else at = absoluteMs(a, argv[++i]!, now);
  }
  const wrote = get
    ? nx
      ? isNullReply(reply)
      : xx
        ? !isNullReply(reply)
        : true
    : isSimpleReply(reply);
  if (!wrote) return NONE;
  const out = [SET, argv[1]!, argv[2]!];
  if (at !== 0) out.push(PXAT, msBuffer(at));
  else if (keepTtl) out.push(KEEPTTL);
  return [out];
};

/** SETNX: a SET when it set. */
export const setnxReplay: PropagationRule = (argv, reply) =>
  replyInteger(reply) === 1 ? [[SET, argv[1]!, argv[2]!]] : NONE;

/** SETEX (seconds), PSETEX: SET with the expiry as PXAT. */
export const setexReplay =
  (seconds: boolean): PropagationRule =>
  (argv, _reply, now) => [
    [SET, argv[1]!, argv[3]!, PXAT, msBuffer(now + num(argv[2]!) * (seconds ? 1000 : 1))],
  ];

/** GETSET: a SET. */
export const getsetReplay: PropagationRule = (argv) => [[SET, argv[1]!, argv[2]!]];

/** GETDEL: a DEL when the key was there. */
export const getdelReplay: PropagationRule = (argv, reply) =>
  isNullReply(reply) ? NONE : [[DEL, argv[1]!]];

/** GETEX: the new expiry (PEXPIREAT, DEL when past, PERSIST); nothing without an option. */
export const getexReplay: PropagationRule = (argv, reply, now) => {
  if (isNullReply(reply) || argv.length < 3) return NONE;
  const opt = argv[2]!;
  if (eqi(opt, 'persist')) return [[PERSIST, argv[1]!]];
  return expireAt(argv[1]!, absoluteMs(opt, argv[3]!, now), now);
};

/** MSETNX: an MSET when it set. */
export const msetnxReplay: PropagationRule = (argv, reply) =>
  replyInteger(reply) === 1 ? [[MSET, ...argv.slice(1)]] : NONE;

/** INCRBYFLOAT: the value it wrote, as SET KEEPTTL. */
export const incrbyfloatReplay: PropagationRule = (argv, reply) => {
  const v = replyBulk(reply);
  return v === null ? NONE : [[SET, argv[1]!, Buffer.from(v), KEEPTTL]];
};
