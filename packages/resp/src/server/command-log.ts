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
   * and a rejection turns this reply into a NOTPERSISTED error (the command
   * ran: applied in memory, not durable; see notPersistedMessage). Else
   * undefined. Refusing writes before they run is `setWriteError`'s job.
   */
  append(db: number, argv: readonly Buffer[]): Promise<void> | undefined;

  /**
   * Called once the commands of an event-loop turn ran, before their
   * replies leave (TurnWrites): what was appended should reach the OS now,
   * as Redis writes its AOF buffer in `beforeSleep` before writing to
   * clients, so a crash of this process loses no acknowledged write.
   */
  beforeReplies?(): void;
}

/**
 * A command's replay form, decided from its arguments and its reply (the
 * reply says whether it changed anything: `SET NX` answering nil did not).
 * Returns the argv lists to log, in order (none: nothing to log). A command
 * whose effect depends on when or how it ran gives one as `replay` on its
 * definition; one without is logged as it came.
 */
export type PropagationRule = (argv: readonly Buffer[], reply: Buffer, now: number) => Buffer[][];

export const MULTI_ARGV: readonly Buffer[] = [Buffer.from('MULTI')];
export const EXEC_ARGV: readonly Buffer[] = [Buffer.from('EXEC')];

const NONE: readonly Buffer[][] = [];

/**
 * What to log for a write command that ran: nothing for an error reply,
 * else the forms of its rule (its definition's `replay`), or with none the
 * command as it came (a deterministic write).
 */
export function propagationOf(
  rule: PropagationRule | null,
  argv: readonly Buffer[],
  reply: Buffer,
  now: number,
): readonly (readonly Buffer[])[] {
  if (reply.length === 0 || reply[0] === 0x2d) return NONE;
  return rule === null ? [argv] : rule(argv, reply, now);
}
