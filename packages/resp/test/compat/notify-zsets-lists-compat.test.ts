import { encodeCommand } from '@strata/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RawClient, startServer, type TestServer } from '../support/test-server.js';
import { hasRedisServer, startRedis } from './compat-runner.js';
import { NOTIFY_ZSETS_LISTS_CASES, toDisk } from './notify-zsets-lists-cases.js';
import { describeRecordedCompat } from './recorded-compat.js';
import { runSession } from './session-runner.js';

/**
 * Keyspace notifications of the sorted set, list and blocking commands
 * byte for byte against Redis 7, over a listening connection and a
 * writing one (see notify-zsets-lists-cases.ts): compared with the
 * recorded transcripts always, and with a live redis-server when
 * installed.
 */
describeRecordedCompat({
  cases: NOTIFY_ZSETS_LISTS_CASES,
  run: runSession,
  expectedFile: new URL('./notify-zsets-lists-compat-expected.json', import.meta.url),
  strataTitle: 'sorted set, list and blocking keyspace notifications are those of Redis 7',
  redisTitle:
    'the recorded sorted set, list and blocking notifications are what redis-server answers',
});

// ---- blocked clients served later ------------------------------------------------------
//
// A client blocked on a key is served by another client's push: Redis sends
// the pusher's events, then the served client's (its pop, in its database).
// The session runner waits for every command's reply, so these run here:
// each step's replies, the replies of the clients it served, then what the
// listener received, on strata and on redis-server alike.

interface ServedStep {
  /** The connection (1, 2, ...; 0 is the listener) and the command. */
  readonly on: number;
  readonly argv: readonly string[];
  /** The command blocks: the step ends once the server counts it blocked. */
  readonly blocks?: true;
  /** The blocked connections this command serves: their replies are read before the listener's frames. */
  readonly serves?: readonly number[];
}

interface ServedCase {
  readonly name: string;
  /** Run on connection 1 before notifications are on (their replies are not compared). */
  readonly setup?: readonly (readonly string[])[];
  readonly flags: string;
  /** The listener speaks RESP3. */
  readonly resp3?: true;
  readonly steps: readonly ServedStep[];
}

const MARKER = encodeCommand(['PING', '__end__']);
const MARKER_REPLIES = ['*2\r\n$4\r\npong\r\n$7\r\n__end__\r\n', '$7\r\n__end__\r\n'];

/** Sends `bytes` (if any) and the marker; what came before the marker's reply. */
async function exchange(c: RawClient, bytes: Buffer | null): Promise<string> {
  c.write(bytes === null ? MARKER : Buffer.concat([bytes, MARKER]));
  const got = await c.readUntil((s) => MARKER_REPLIES.some((m) => s.endsWith(m)), 10_000);
  c.take();
  const marker = MARKER_REPLIES.find((m) => got.endsWith(m))!;
  return got.slice(0, got.length - marker.length);
}

async function blockedClients(control: RawClient): Promise<number> {
  const info = await exchange(control, encodeCommand(['INFO', 'clients']));
  return Number(/blocked_clients:(\d+)/.exec(info)![1]);
}

async function untilBlocked(control: RawClient, n: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while ((await blockedClients(control)) !== n) {
    if (Date.now() > deadline) throw new Error(`never ${n} blocked clients`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const cmd = (...argv: string[]) => encodeCommand(argv);

async function runServed(port: number, c: ServedCase): Promise<string> {
  const count = Math.max(...c.steps.map((s) => s.on), 1) + 1;
  const peers: RawClient[] = [];
  for (let i = 0; i < count; i++) peers.push(await RawClient.connect(port));
  const control = await RawClient.connect(port);
  const listener = peers[0]!;
  try {
    // Pipelined, then one marker (it comes after any EXEC of the setup).
    for (const argv of c.setup ?? []) peers[1]!.write(cmd(...argv));
    await exchange(peers[1]!, null);
    if (c.resp3) await exchange(listener, cmd('HELLO', '3'));
    const out = [`[0] ${await exchange(listener, cmd('PSUBSCRIBE', '__key*__:*'))}`];
    await exchange(control, cmd('CONFIG', 'SET', 'notify-keyspace-events', c.flags));
    let blocked = 0;
    const inMulti = peers.map(() => false);
    for (const step of c.steps) {
      const p = peers[step.on]!;
      const name = step.argv[0]!.toLowerCase();
      if (step.blocks) {
        p.write(cmd(...step.argv));
        await untilBlocked(control, ++blocked);
        out.push(`[${step.on}] <blocked>`);
        continue;
      }
      // Inside MULTI the marker would be queued too (see session-runner.ts).
      if (name === 'multi') inMulti[step.on] = true;
      if (inMulti[step.on] && name !== 'exec' && name !== 'discard') {
        p.write(cmd(...step.argv));
        continue;
      }
      inMulti[step.on] = false;
      out.push(`[${step.on}] ${await exchange(p, cmd(...step.argv))}`);
      for (const s of step.serves ?? []) {
        out.push(`[${s}] ${await exchange(peers[s]!, null)}`);
        blocked--;
      }
      const frames = await exchange(listener, null);
      if (frames !== '') out.push(`[0] ${frames}`);
    }
    expect(await blockedClients(control)).toBe(blocked);
    return out.join('\n');
  } finally {
    await exchange(control, cmd('CONFIG', 'SET', 'notify-keyspace-events', '')).catch(() => '');
    for (const p of peers) p.close();
    control.close();
  }
}

const run = (on: number, ...argv: string[]): ServedStep => ({ on, argv });
const block = (on: number, ...argv: string[]): ServedStep => ({ on, argv, blocks: true });
const serving = (serves: number[], on: number, ...argv: string[]): ServedStep => ({
  on,
  argv,
  serves,
});

/** toDisk's steps as setup commands. */
const diskSetup = (prefix: string) => toDisk(prefix).map(([, ...argv]) => argv);

const SERVED_CASES: readonly ServedCase[] = [
  {
    name: 'BLPOP and BRPOP served by RPUSH: new, rpush, then each served pop, del once emptied',
    flags: 'KEAn',
    steps: [
      block(2, 'blpop', 'sv:a', '0'),
      block(3, 'brpop', 'sv:nope', 'sv:a', '0'),
      serving([2, 3], 1, 'rpush', 'sv:a', 'x', 'y', 'z'),
      run(1, 'lrange', 'sv:a', '0', '-1'),
      block(2, 'blpop', 'sv:b', '0'),
      block(3, 'blpop', 'sv:b', '0'),
      serving([2], 1, 'lpush', 'sv:b', 'x'),
      serving([3], 1, 'rpush', 'sv:b', 'y'),
      run(1, 'exists', 'sv:a', 'sv:b'),
    ],
  },
  {
    name: 'BLMOVE served, its push serving a BLPOP on its destination in turn',
    flags: 'KEAn',
    steps: [
      block(2, 'blmove', 'sv:mv:src', 'sv:mv:dst', 'right', 'left', '0'),
      block(3, 'blpop', 'sv:mv:dst', '0'),
      serving([2, 3], 1, 'rpush', 'sv:mv:src', 'x', 'y'),
      block(2, 'brpoplpush', 'sv:mv:rot', 'sv:mv:rot', '0'),
      block(3, 'blmove', 'sv:mv:rot', 'sv:mv:rot', 'left', 'right', '0'),
      serving([2, 3], 1, 'lpush', 'sv:mv:rot', 'a', 'b'),
      run(1, 'lrange', 'sv:mv:rot', '0', '-1'),
      block(2, 'blmove', 'sv:mv:s2', 'sv:mv:d2', 'left', 'right', '0'),
      serving([2], 1, 'rpush', 'sv:mv:s2', 'a', 'b'),
      run(1, 'lrange', 'sv:mv:d2', '0', '-1'),
    ],
  },
  {
    name: 'BLMOVE served by a push whose destination holds another type: WRONGTYPE, no pop',
    setup: [['set', 'sv:wt:str', 'v']],
    flags: 'KEA',
    steps: [
      block(2, 'blmove', 'sv:wt:src', 'sv:wt:str', 'left', 'left', '0'),
      serving([2], 1, 'rpush', 'sv:wt:src', 'a'),
      run(1, 'lrange', 'sv:wt:src', '0', '-1'),
    ],
  },
  {
    name: 'BZPOPMIN and BZPOPMAX served by ZADD, ZINCRBY and ZUNIONSTORE',
    flags: 'KEAn',
    steps: [
      block(2, 'bzpopmin', 'sz:a', '0'),
      block(3, 'bzpopmax', 'sz:a', '0'),
      serving([2, 3], 1, 'zadd', 'sz:a', '1', 'a', '2', 'b', '3', 'c'),
      block(2, 'bzpopmin', 'sz:nope', 'sz:b', '0'),
      serving([2], 1, 'zincrby', 'sz:b', '1', 'a'),
      block(2, 'bzpopmax', 'sz:c', '0'),
      serving([2], 1, 'zunionstore', 'sz:c', '1', 'sz:a'),
      block(2, 'bzpopmin', 'sz:d', '0'),
      serving([2], 1, 'zrangestore', 'sz:d', 'sz:a', '0', '-1'),
      run(1, 'exists', 'sz:a', 'sz:b', 'sz:c', 'sz:d'),
    ],
  },
  {
    name: 'BLMPOP served by LPUSH (COUNT), and a BLPOP served by LMOVE from another list',
    flags: 'KEAn',
    steps: [
      block(2, 'blmpop', '0', '2', 'sv:mp:a', 'sv:mp:b', 'left', 'count', '5'),
      serving([2], 1, 'lpush', 'sv:mp:b', 'x', 'y'),
      block(2, 'blmpop', '0', '1', 'sv:mp:c', 'right', 'count', '1'),
      serving([2], 1, 'rpush', 'sv:mp:c', 'x', 'y'),
      run(1, 'rpush', 'sv:mp:s', 'a'),
      block(3, 'blpop', 'sv:mp:t', '0'),
      serving([3], 1, 'lmove', 'sv:mp:s', 'sv:mp:t', 'left', 'left'),
      run(1, 'exists', 'sv:mp:b', 'sv:mp:c', 'sv:mp:s', 'sv:mp:t'),
    ],
  },
  {
    name: 'served once EXEC ends: the transaction’s events, then the served pops',
    flags: 'KEAn',
    steps: [
      block(2, 'blpop', 'sv:tx:a', '0'),
      block(3, 'bzpopmin', 'sv:tx:z', '0'),
      run(1, 'multi'),
      run(1, 'rpush', 'sv:tx:a', 'x'),
      run(1, 'rpush', 'sv:tx:a', 'y'),
      run(1, 'zadd', 'sv:tx:z', '1', 'a'),
      run(1, 'lpop', 'sv:tx:a'),
      serving([2, 3], 1, 'exec'),
      run(1, 'exists', 'sv:tx:a', 'sv:tx:z'),
    ],
  },
  {
    name: 'served in database 3: every event in __keyspace@3__ / __keyevent@3__',
    flags: 'KEAn',
    steps: [
      run(2, 'select', '3'),
      run(1, 'select', '3'),
      block(2, 'blpop', 'sv:db:a', '0'),
      serving([2], 1, 'rpush', 'sv:db:a', 'x'),
      block(2, 'blmove', 'sv:db:b', 'sv:db:c', 'left', 'left', '0'),
      serving([2], 1, 'rpush', 'sv:db:b', 'x'),
    ],
  },
  {
    name: 'a RESP3 listener: pushes and the served pops as push frames',
    flags: 'KEAn',
    resp3: true,
    steps: [
      block(2, 'blpop', 'sv:r3:a', '0'),
      serving([2], 1, 'rpush', 'sv:r3:a', 'x', 'y'),
      block(2, 'bzpopmax', 'sv:r3:z', '0'),
      serving([2], 1, 'zadd', 'sv:r3:z', '1', 'a'),
    ],
  },
  {
    name: 'keys on the disk: BLMOVE into a list on the disk, BZPOPMIN served by a ZUNIONSTORE of sets on the disk',
    setup: [
      ['rpush', 'sv:dk:dst', 'x'],
      ['zadd', 'sv:dk:s1', '1', 'a', '2', 'b'],
      ['zadd', 'sv:dk:s2', '3', 'c'],
      ['rpush', 'sv:dk:old', 'o'],
      ...diskSetup('sv:dk:fill'),
    ],
    flags: 'KEAnm',
    steps: [
      block(2, 'blmove', 'sv:dk:src', 'sv:dk:dst', 'left', 'right', '0'),
      serving([2], 1, 'rpush', 'sv:dk:src', 'a'),
      block(3, 'bzpopmin', 'sv:dk:z', '0'),
      serving([3], 1, 'zunionstore', 'sv:dk:z', '3', 'sv:dk:s1', 'sv:dk:nope', 'sv:dk:s2'),
      block(2, 'blpop', 'sv:dk:t', '0'),
      serving([2], 1, 'lmove', 'sv:dk:old', 'sv:dk:t', 'left', 'left'),
      run(1, 'lrange', 'sv:dk:dst', '0', '-1'),
      run(1, 'zrange', 'sv:dk:z', '0', '-1'),
    ],
  },
];

describe.skipIf(!hasRedisServer())(
  'blocked clients served later: the same events as redis-server',
  () => {
    let t: TestServer;
    let r: { port: number; stop(): void };
    beforeAll(async () => {
      t = await startServer();
      r = await startRedis();
    });
    afterAll(async () => {
      r.stop();
      await t.stop();
    });
    for (const c of SERVED_CASES) {
      test(c.name, async () => {
        const redis = await runServed(r.port, c);
        const strata = await runServed(t.port, c);
        expect(strata).toBe(redis);
        // The comparison means something only if events came.
        expect(redis).toMatch(/__keyevent@\d+__:/);
      });
    }
  },
);

// ---- the disk cases' keys are on the disk ------------------------------------------------

/** Each disk case: its commands up to the filler's MSET, and the keys they wrote first. */
function diskSetups(): [name: string, commands: string[][], keys: string[]][] {
  const out: [string, string[][], string[]][] = [];
  const add = (name: string, commands: string[][]) => {
    const keys: string[] = [];
    for (const [cmdName, key] of commands) {
      if (cmdName !== 'mset' && key !== undefined && !key.includes(':fill:')) keys.push(key);
    }
    out.push([name, commands, keys]);
  };
  for (const c of NOTIFY_ZSETS_LISTS_CASES) {
    if (!c.name.startsWith('keys on the disk')) continue;
    // The cases' steps are all single commands: [connection, ...argv].
    const steps = c.steps.filter((s): s is readonly [number, ...string[]] => Array.isArray(s));
    const last = steps.findIndex((s) => s[1] === 'mset');
    add(
      c.name,
      steps.slice(0, last + 1).flatMap(([n, ...argv]) => (n === 1 ? [argv] : [])),
    );
  }
  for (const c of SERVED_CASES) {
    if (c.name.startsWith('keys on the disk'))
      add(
        c.name,
        (c.setup ?? []).map((a) => [...a]),
      );
  }
  return out;
}

describe('the disk cases put the keys they write first on the disk', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startServer();
  });
  afterAll(async () => {
    await t.stop();
  });
  test.each(diskSetups())('%s', async (_name, commands, keys) => {
    const client = await RawClient.connect(t.port);
    try {
      for (const argv of commands) client.write(encodeCommand(argv));
      await exchange(client, null);
      const collections = t.server.keyspace.collections(0)!;
      const store = t.server.keyspace.get(0)!;
      expect(keys.length).toBeGreaterThan(3);
      for (const key of keys) {
        const k = Buffer.from(key);
        // Neither decoded in the collection cache nor in the log's memory.
        expect(collections.peek(k), key).toBeUndefined();
        const v = store.read(k);
        expect(v.status, key).toBe('pending');
        if (v.status === 'pending') await v.pending;
      }
    } finally {
      client.close();
    }
  });
});
