import type Redis from 'ioredis';

/**
 * A key's value read through a client, in one canonical text per type
 * (hash fields and set members sorted), with whether it has a TTL: equal
 * texts mean equal values. A stream's includes its consumer groups.
 */
export type KeyRead =
  | { kind: 'value'; text: string }
  | { kind: 'missing' }
  | { kind: 'error'; message: string };

type Reply = [Error | null, unknown];

function pairsSorted(flat: readonly string[]): string[][] {
  const pairs: string[][] = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
  return pairs.sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
}

/** The commands that read a key of `type`, and how their replies become one text. */
function readersOf(type: string): {
  commands: (key: string) => string[][];
  text: (replies: unknown[]) => string;
} | null {
  switch (type) {
    case 'string':
      return { commands: (k) => [['GET', k]], text: ([v]) => JSON.stringify(v) };
    case 'hash':
      return {
        commands: (k) => [['HGETALL', k]],
        text: ([v]) => JSON.stringify(pairsSorted(v as string[])),
      };
    case 'list':
      return { commands: (k) => [['LRANGE', k, '0', '-1']], text: ([v]) => JSON.stringify(v) };
    case 'set':
      return {
        commands: (k) => [['SMEMBERS', k]],
        text: ([v]) => JSON.stringify([...(v as string[])].sort()),
      };
    case 'zset':
      return {
        commands: (k) => [['ZRANGE', k, '0', '-1', 'WITHSCORES']],
        text: ([v]) => JSON.stringify(v),
      };
    case 'stream':
      return {
        commands: (k) => [
          ['XRANGE', k, '-', '+'],
          ['XINFO', 'GROUPS', k],
          ['XPENDING', k, 'g'],
        ],
        text: (v) => JSON.stringify(v),
      };
    default:
      return null;
  }
}

/**
 * Reads every key (pipelined, in batches): TYPE and PTTL first, then the
 * type's reads. An error reply anywhere makes the key's read an error.
 */
export async function readKeys(r: Redis, keys: readonly string[]): Promise<Map<string, KeyRead>> {
  const out = new Map<string, KeyRead>();
  const BATCH = 500;
  for (let i = 0; i < keys.length; i += BATCH) {
    const batch = keys.slice(i, i + BATCH);
    const head = r.pipeline();
    for (const k of batch) head.call('TYPE', k).call('PTTL', k);
    const heads = ((await head.exec()) ?? []) as Reply[];
    const body = r.pipeline();
    const plans: { key: string; n: number; text: (v: unknown[]) => string; ttl: boolean }[] = [];
    batch.forEach((key, j) => {
      const [typeErr, type] = heads[2 * j]!;
      const [ttlErr, ttl] = heads[2 * j + 1]!;
      const err = typeErr ?? ttlErr;
      if (err !== null) {
        out.set(key, { kind: 'error', message: err.message });
        return;
      }
      if (type === 'none') {
        out.set(key, { kind: 'missing' });
        return;
      }
      const readers = readersOf(String(type));
      if (readers === null) {
        out.set(key, { kind: 'value', text: `unknown type ${String(type)}` });
        return;
      }
      const commands = readers.commands(key);
      for (const [name, ...args] of commands) body.call(name!, ...args);
      plans.push({ key, n: commands.length, text: readers.text, ttl: Number(ttl) > 0 });
    });
    const replies = ((await body.exec()) ?? []) as Reply[];
    let at = 0;
    for (const p of plans) {
      const mine = replies.slice(at, at + p.n);
      at += p.n;
      const err = mine.find(([e]) => e !== null)?.[0];
      if (err) out.set(p.key, { kind: 'error', message: err.message });
      else
        out.set(p.key, {
          kind: 'value',
          text: `${p.ttl ? 'ttl ' : ''}${p.text(mine.map(([, v]) => v))}`,
        });
    }
  }
  return out;
}
