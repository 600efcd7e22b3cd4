import { latin1, type StreamConsumer, type StreamId } from '@strata/collections';
import { eqi, parseInteger } from '../../args.js';
import { syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { readStream, streamChanged, withStream } from './stream-access.js';
import { parseBound, parseId, STRICT } from './stream-args.js';
import { noKeyOrGroupError } from './stream-errors.js';
import { writeId } from './stream-replies.js';

/** XACK and XPENDING. */

export function xack(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  return withStream(c, key, (s) => {
    const g = s?.groups.get(latin1(argv[2]!));
    if (s === null || g === undefined) {
      c.reply.integer(0);
      c.propagate();
      return undefined;
    }
    // All IDs first: an error reply means nothing was acknowledged.
    const ids: StreamId[] = [];
    for (let i = 3; i < argv.length; i++) ids.push(parseId(argv[i]!, STRICT));
    let n = 0;
    for (const id of ids) if (g.ack(id)) n++;
    if (n > 0) streamChanged(c, key, s);
    else c.propagate();
    c.reply.integer(n);
    return undefined;
  });
}

export function xpending(c: Client, argv: Buffer[]): CommandResult {
  const key = argv[1]!;
  const summary = argv.length === 3;
  if (!summary && (argv.length < 6 || argv.length > 9)) throw syntaxError();
  let minIdle = 0;
  let start: StreamId | null = null;
  let end: StreamId | null = null;
  let count = 0;
  let consumerName: Buffer | null = null;
  if (!summary) {
    let at = 3;
    if (eqi(argv[3]!, 'idle')) {
      minIdle = parseInteger(argv[4]!);
      if (argv.length < 8) throw syntaxError();
      at += 2;
    }
    count = Math.max(0, parseInteger(argv[at + 2]!));
    start = parseBound(argv[at]!, false);
    end = parseBound(argv[at + 1]!, true);
    if (at + 3 < argv.length) consumerName = argv[at + 3]!;
  }
  return readStream(c, key, (s) => {
    const g = s?.groups.get(latin1(argv[2]!));
    if (s === null || g === undefined) throw noKeyOrGroupError(key, argv[2]!);
    const w = c.reply;
    if (summary) {
      w.array(4);
      w.integer(g.pendingCount);
      if (g.pendingCount === 0) {
        w.null();
        w.null();
        w.nullArray();
        return undefined;
      }
      writeId(w, g.firstPending()!);
      writeId(w, g.lastPending()!);
      const owners = [...g.consumers.values()]
        .filter((x) => x.pending > 0)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      w.array(owners.length);
      for (const o of owners) w.array(2).bulkLatin1(o.name).bulk(String(o.pending));
      return undefined;
    }
    let only: StreamConsumer | undefined;
    if (consumerName !== null) {
      only = g.consumer(latin1(consumerName), 0, false);
      if (only === undefined) {
        w.array(0);
        return undefined;
      }
    }
    const now = Date.now();
    const rows: { id: StreamId; owner: string; idle: number; deliveries: number }[] = [];
    if (count > 0) {
      g.forPending(start!, end!, (e) => {
        if (only !== undefined && e.consumer !== only) return true;
        const idle = now - e.deliveryTime;
        if (minIdle !== 0 && idle < minIdle) return true;
        rows.push({
          id: e.id,
          owner: e.consumer.name,
          idle: Math.max(0, idle),
          deliveries: e.deliveryCount,
        });
        return rows.length < count;
      });
    }
    w.array(rows.length);
    for (const r of rows) {
      w.array(4);
      writeId(w, r.id);
      w.bulkLatin1(r.owner).integer(r.idle).integer(r.deliveries);
    }
    return undefined;
  });
}
