import type { ServerState } from '../../server/server-state.js';
import { type MemoryFacts, memoryFacts } from '../server/server-info.js';

/** What MEMORY STATS and DOCTOR read: INFO memory's facts and the live-key counts. */
export interface MemoryOverhead extends MemoryFacts {
  /** Live keys of each open database that has some, by database number. */
  readonly keysByDb: ReadonlyMap<number, number>;
  readonly keys: number;
}

/**
 * The memory facts with every open database's exact key count (DBSIZE's:
 * the store's own count, once its background resolutions are done).
 */
export async function memoryOverhead(s: ServerState): Promise<MemoryOverhead> {
  const counts: Promise<number>[] = [];
  const dbs: number[] = [];
  for (let db = 0; db < s.keyspace.count; db++) {
    const store = s.keyspace.get(db);
    if (store === undefined) continue;
    dbs.push(db);
    counts.push(s.keyspace.track(db, store.exactCount()));
  }
  const done = await Promise.all(counts);
  const keysByDb = new Map<number, number>();
  let keys = 0;
  for (let i = 0; i < dbs.length; i++) {
    if (done[i]! === 0) continue;
    keysByDb.set(dbs[i]!, done[i]!);
    keys += done[i]!;
  }
  return { ...memoryFacts(s), keysByDb, keys };
}
