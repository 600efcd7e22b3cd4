import { Before, type SortedSet } from '@strata/collections';
import { RecordType } from '@strata/hlog';
import { formatDouble } from '@strata/protocol';
import { formatHuman, fromNumber } from '../../long-double.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import { serverSlot } from '../family.js';
import { keyMiss } from '../pubsub/keyspace-events.js';
import { withCollection } from '../shared/collection-access.js';
import { matches, parseCollectionScan } from '../shared/collection-scan-options.js';
import { sortedSetGroup } from '../shared/command-groups.js';
import { KEY1 } from '../shared/key-positions.js';
import { parseCursor } from '../shared/scan-options.js';

/**
 * ZSCAN key cursor [MATCH pattern] [COUNT count] [NOSCORES].
 *
 * A listpack set answers whole in one call with cursor 0, as Redis does. A
 * large one is walked in score order, COUNT pairs per call, with MATCH
 * compiled once per call and run on each member's bytes inside the walk
 * (nothing is allocated for a member it rejects). The cursor carries the
 * rank to resume at, and the set remembers the last pair each recent
 * cursor returned: resuming right after that pair, members removed or
 * added before it shift no one past the walk, so every member present for
 * the whole iteration is returned (duplicates are possible, as in Redis).
 * A cursor the set no longer remembers (after eviction to disk, or more
 * than RESUME_POINTS scans later) falls back to its rank.
 */

const RANK_SPAN = 2 ** 32;
const RESUME_POINTS = 256;

interface ResumePoint {
  readonly score: number;
  readonly member: string;
}

/** Per server, the resume points of its sets (weakly: a set evicted or deleted takes its own). */
const resumePointsSlot = serverSlot(
  'zscan resume points',
  () => new WeakMap<SortedSet, Map<number, ResumePoint>>(),
);
let cursorSeq = 0;

/** ZSCAN's score text: a listpack keeps d2string's %.17g, a dict prints %.17Lf trimmed. */
function scoreText(score: number, listpack: boolean): string {
  if (listpack || !Number.isFinite(score)) return formatDouble(score);
  return formatHuman(fromNumber(score));
}

function zscan(c: Client, argv: Buffer[]): CommandResult {
  const cursor = parseCursor(argv[2]!);
  return withCollection<SortedSet>(c, argv[1]!, RecordType.ZSET, (z) => {
    if (z === null) {
      // Redis reads the options once it found the key: a missing one answers even bad ones.
      keyMiss(c, argv[1]!);
      c.reply.array(2).bulk('0').array(0);
      return undefined;
    }
    const { count, match: glob, flag: noScores } = parseCollectionScan(argv, 3, 'noscores');
    const listpack = z.encoding() === 'listpack';
    let from = 0;
    let n = z.size;
    if (!listpack) {
      from = resumeRank(c, z, cursor);
      n = Math.min(count, z.size - from);
    }
    // Members chosen first: the reply's length comes before them.
    const picked: number[] = [];
    if (n > 0) {
      const cur = z.at(from);
      for (let i = 0; i < n; i++, cur.next()) {
        if (matches(glob, cur.member)) picked.push(from + i);
      }
    }
    const next = listpack || from + n >= z.size ? 0 : newCursor(c, z, from + n);
    c.reply.array(2).bulk(String(next));
    c.reply.array(noScores ? picked.length : picked.length * 2);
    if (picked.length > 0) {
      const cur = z.at(picked[0]!);
      let rank = picked[0]!;
      for (const r of picked) {
        for (; rank < r; rank++) cur.next();
        c.reply.bulkLatin1(cur.member);
        if (!noScores) c.reply.bulk(scoreText(cur.score, listpack));
      }
    }
    return undefined;
  });
}

/** Where a cursor resumes: right after its remembered pair, else at its rank. */
function resumeRank(c: Client, z: SortedSet, cursor: number): number {
  if (cursor === 0) return 0;
  const point = c.server.state(resumePointsSlot).get(z)?.get(cursor);
  if (point !== undefined) return z.countBefore(Before.ENTRY_LE, point.score, point.member);
  return Math.min(cursor % RANK_SPAN, z.size);
}

/** A cursor for resuming at `rank`, remembering the pair just before it. */
function newCursor(c: Client, z: SortedSet, rank: number): number {
  cursorSeq = (cursorSeq % 2 ** 20) + 1;
  const cursor = cursorSeq * RANK_SPAN + rank;
  const resumePoints = c.server.state(resumePointsSlot);
  let points = resumePoints.get(z);
  if (points === undefined) {
    points = new Map();
    resumePoints.set(z, points);
  }
  const last = z.at(rank - 1);
  points.set(cursor, { score: last.score, member: last.member });
  if (points.size > RESUME_POINTS) points.delete(points.keys().next().value!);
  return cursor;
}

export const zscanCommand: CommandDefinition = {
  name: 'zscan',
  arity: -3,
  flags: ['readonly'],
  ...KEY1,
  ...sortedSetGroup,
  tips: ['nondeterministic_output'],
  since: '2.8.0',
  summary: 'Iterates over members and scores of a sorted set.',
  complexity:
    'O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.',
  handler: zscan,
};
