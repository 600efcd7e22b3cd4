import type { Store } from '@strata/hlog';

/** What a store has done, to tell whether it changed since its last checkpoint or commit point. */
export interface Mark {
  /** The log's tail. */
  tail: number;
  /** Writes (upsert, delete, read-modify-write) so far. */
  writes: number;
  /** Every counter that moves when the log's content changes. */
  counters: string;
}

export function markOf(store: Store): Mark {
  const s = store.stats();
  const o = s.ops;
  return {
    tail: s.log.tail,
    writes: o.writes ?? 0,
    counters: `${o.writes}/${o.inPlace}/${o.copies}/${o.expired}`,
  };
}

/**
 * What a checkpoint that started at `before` covers, as a mark, now that it
 * is done (`now`). A checkpoint moves the tail itself (it seals the tail
 * page): it covers the counters from before it and the tail after it. A
 * write during it is not covered: the counters show it (the next round
 * checkpoints), and the tail mark stays where the checkpoint started, so
 * that with the AOF the bytes written meanwhile count towards the next
 * commit point (else a load that ends during a checkpoint would leave its
 * last writes to the AOF's replay, one command at a time, after a crash).
 */
export function markAfterCheckpoint(before: Mark, now: Mark): Mark {
  return { ...before, tail: now.counters === before.counters ? now.tail : before.tail };
}

/**
 * Whether a commit point is due at `now` since `before`. With the AOF a
 * commit point only shortens the AOF's replay after a crash: due once the
 * log grew by a quarter page. Without it, it is what a crash keeps: due at
 * any change.
 */
export function commitDue(
  before: Mark | undefined,
  now: Mark,
  aof: boolean,
  pageSize: number,
): boolean {
  if (before === undefined) return true;
  if (aof) return now.tail - before.tail >= pageSize / 4;
  return before.tail !== now.tail || before.counters !== now.counters;
}
