import type { SortedSet } from '@strata/collections';
import type { Client } from '../../server/client.js';

/**
 * Writes `count` pairs walking from rank `from` (down with `reverse`), as
 * Redis 7 replies ranges: members only, or with WITHSCORES flat
 * member/score pairs in RESP2 and [member, score] arrays in RESP3. Scores
 * are doubles (RESP3 `,`), members their bytes.
 */
export function replyPairs(
  c: Client,
  z: SortedSet,
  from: number,
  count: number,
  reverse: boolean,
  withScores: boolean,
): void {
  const nested = withScores && c.protocol === 3;
  c.reply.array(withScores && !nested ? count * 2 : count);
  if (count === 0) return;
  const cur = z.at(from);
  for (let i = 0; i < count; i++) {
    if (nested) c.reply.array(2);
    c.reply.bulkLatin1(cur.member);
    if (withScores) c.reply.double(cur.score);
    if (reverse) cur.prev();
    else cur.next();
  }
}
