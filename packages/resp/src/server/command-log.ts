import { isNullReply, isSimpleReply, replyBulk, replyBulks, replyInteger } from '@strata/protocol';
import { eqi } from '../args.js';

/**
 * Where write commands go to be made durable (an append-only file). The
 * server calls `append` once per write command that changed data, in
 * execution order, after the change and before its reply leaves.
 */
export interface CommandLog {
  /**
   * `db` is the database the command ran in; `argv` the command as it must
   * be replayed: relative expiries made absolute (SET EX → SET PXAT,
   * EXPIRE → PEXPIREAT...), results that depend on when or how it ran
   * written out (INCRBYFLOAT → SET k v KEEPTTL, SPOP → SREM). A
   * transaction with writes arrives as MULTI, its writes, EXEC.
   *
   * Return a promise when the reply must wait for it (appendfsync always):
   * the connection holds this reply and every later one until it settles,
   * and a rejection turns this reply into a MISCONF error. Else undefined.
   */
  append(db: number, argv: readonly Buffer[]): Promise<void> | undefined;
}

/**
 * A command's replay form, decided from its arguments and its reply (the
 * reply says whether it changed anything: `SET NX` answering nil did not).
 * Returns the argv lists to log, in order (none: nothing to log).
 */
export type PropagationRule = (argv: readonly Buffer[], reply: Buffer, now: number) => Buffer[][];

const SET = Buffer.from('SET');
const DEL = Buffer.from('DEL');
const MSET = Buffer.from('MSET');
const PXAT = Buffer.from('PXAT');
const KEEPTTL = Buffer.from('KEEPTTL');
const PEXPIREAT = Buffer.from('PEXPIREAT');
const PERSIST = Buffer.from('PERSIST');
const SREM = Buffer.from('SREM');
const HSET = Buffer.from('HSET');
export const MULTI_ARGV: readonly Buffer[] = [Buffer.from('MULTI')];
export const EXEC_ARGV: readonly Buffer[] = [Buffer.from('EXEC')];

const NONE: Buffer[][] = [];

function num(b: Buffer): number {
  return Number(b.toString('latin1'));
}

const msBuffer = (ms: number): Buffer => Buffer.from(String(ms));

/** An absolute expiry (ms) from an option and its argument. */
function absoluteMs(unit: Buffer, arg: Buffer, now: number): number {
  const v = num(arg);
  if (eqi(unit, 'ex')) return now + v * 1000;
  if (eqi(unit, 'px')) return now + v;
  if (eqi(unit, 'exat')) return v * 1000;
  return v; // pxat
}

/** A key's new expiry: PEXPIREAT, or DEL when it is already past (Redis does the same). */
function expireAt(key: Buffer, ms: number, now: number): Buffer[][] {
  return ms <= now ? [[DEL, key]] : [[PEXPIREAT, key, msBuffer(ms)]];
}

// ---- the rules ---------------------------------------------------------------------

/** SET: logged when it wrote; NX/XX/GET dropped, the expiry as PXAT or KEEPTTL. */
const set: PropagationRule = (argv, reply, now) => {
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

/** Logged as it came when the integer reply is not 0 (DEL of nothing, EXPIRE NX refused...). */
const whenNonZero: PropagationRule = (argv, reply) =>
  replyInteger(reply) > 0 ? [argv as Buffer[]] : NONE;

const setEx =
  (seconds: boolean): PropagationRule =>
  (argv, _reply, now) => [
    [SET, argv[1]!, argv[3]!, PXAT, msBuffer(now + num(argv[2]!) * (seconds ? 1000 : 1))],
  ];

const expire =
  (unitMs: number, absolute: boolean): PropagationRule =>
  (argv, reply, now) => {
    if (replyInteger(reply) !== 1) return NONE;
    const v = num(argv[2]!) * unitMs;
    return expireAt(argv[1]!, absolute ? v : now + v, now);
  };

export const PROPAGATION: ReadonlyMap<string, PropagationRule> = new Map<string, PropagationRule>([
  ['set', set],
  ['setnx', (argv, reply) => (replyInteger(reply) === 1 ? [[SET, argv[1]!, argv[2]!]] : NONE)],
  ['setex', setEx(true)],
  ['psetex', setEx(false)],
  ['getset', (argv) => [[SET, argv[1]!, argv[2]!]]],
  ['getdel', (argv, reply) => (isNullReply(reply) ? NONE : [[DEL, argv[1]!]])],
  [
    'getex',
    (argv, reply, now) => {
      if (isNullReply(reply) || argv.length < 3) return NONE;
      const opt = argv[2]!;
      if (eqi(opt, 'persist')) return [[PERSIST, argv[1]!]];
      return expireAt(argv[1]!, absoluteMs(opt, argv[3]!, now), now);
    },
  ],
  ['msetnx', (argv, reply) => (replyInteger(reply) === 1 ? [[MSET, ...argv.slice(1)]] : NONE)],
  [
    'incrbyfloat',
    (argv, reply) => {
      const v = replyBulk(reply);
      return v === null ? NONE : [[SET, argv[1]!, Buffer.from(v), KEEPTTL]];
    },
  ],
  ['del', whenNonZero],
  ['unlink', whenNonZero],
  ['renamenx', whenNonZero],
  ['copy', whenNonZero],
  ['move', whenNonZero],
  ['persist', whenNonZero],
  ['expire', expire(1000, false)],
  ['pexpire', expire(1, false)],
  ['expireat', expire(1000, true)],
  ['pexpireat', expire(1, true)],
  // Collections: what was drawn at random is written out.
  [
    'spop',
    (argv, reply) => {
      const members = replyBulks(reply);
      return members.length === 0
        ? NONE
        : [[SREM, argv[1]!, ...members.map((m) => Buffer.from(m))]];
    },
  ],
  [
    'hincrbyfloat',
    (argv, reply) => {
      const v = replyBulk(reply);
      return v === null ? NONE : [[HSET, argv[1]!, argv[2]!, Buffer.from(v)]];
    },
  ],
  ['sadd', whenNonZero],
  ['srem', whenNonZero],
  ['hdel', whenNonZero],
  ['zrem', whenNonZero],
]);

/**
 * What to log for a write command that ran: `null` for an error reply,
 * else its rule's forms, or the command as it came (a deterministic write).
 */
export function propagationOf(
  name: string,
  argv: readonly Buffer[],
  reply: Buffer,
  now: number,
): readonly (readonly Buffer[])[] {
  if (reply.length === 0 || reply[0] === 0x2d) return NONE;
  const rule = PROPAGATION.get(name);
  return rule === undefined ? [argv] : rule(argv, reply, now);
}
