import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeCommand } from '@strata/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SMALL_STORE, startServer, type TestServer } from '../support/test-server.js';
import { hasRedisServer, startRedis } from './compat-runner.js';
import { NOTIFY_KEYS_CASES } from './notify-keys-cases.js';
import { describeRecordedCompat } from './recorded-compat.js';
import { runSession, SessionPeer } from './session-runner.js';

/**
 * Keyspace notifications of the generic commands, byte for byte against
 * Redis 7 (see notify-keys-cases.ts): compared with the recorded
 * transcripts always, and with a live redis-server when installed.
 */
describeRecordedCompat({
  cases: NOTIFY_KEYS_CASES,
  run: runSession,
  expectedFile: new URL('./notify-keys-compat-expected.json', import.meta.url),
  strataTitle: 'generic commands publish the key events of Redis 7',
  redisTitle: 'the recorded key event transcripts are what redis-server answers',
});

// ---- keys found expired on access ---------------------------------------------

/** A session connection that takes argv: what came before its marker's reply. */
async function openConn(port: number) {
  const peer = await SessionPeer.open(port);
  return {
    exchange: (argv: readonly string[] | null) =>
      peer.exchange(argv === null ? null : encodeCommand([...argv])),
    close: () => peer.socket.destroy(),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Command = readonly string[];

/**
 * One key expiring at a time: `setup` (live keys), `pexpire key 1` for each
 * of `expiring`, `filler` keys when the expired one should be on disk, a
 * wait past the expiry, then `access`.
 */
interface Round {
  readonly setup: readonly Command[];
  readonly expiring: readonly string[];
  readonly disk?: boolean;
  readonly access: readonly Command[];
}

const ROUNDS: readonly Round[] = [
  { setup: [['set', 'lx:type', '1']], expiring: ['lx:type'], access: [['type', 'lx:type']] },
  {
    setup: [['set', 'lx:exists', '1']],
    expiring: ['lx:exists'],
    access: [
      ['exists', 'lx:exists', 'lx:exists'],
      ['exists', 'lx:exists'],
    ],
  },
  { setup: [['set', 'lx:ttl', '1']], expiring: ['lx:ttl'], access: [['pttl', 'lx:ttl']] },
  { setup: [['set', 'lx:touch', '1']], expiring: ['lx:touch'], access: [['touch', 'lx:touch']] },
  {
    setup: [
      ['set', 'lx:d1', '1'],
      ['set', 'lx:del', '1'],
      ['set', 'lx:d2', '1'],
    ],
    expiring: ['lx:del'],
    access: [['del', 'lx:d1', 'lx:del', 'lx:d2']],
  },
  {
    setup: [['set', 'lx:expire', '1']],
    expiring: ['lx:expire'],
    access: [['expire', 'lx:expire', '100']],
  },
  {
    setup: [['set', 'lx:expire0', '1']],
    expiring: ['lx:expire0'],
    access: [['expire', 'lx:expire0', '0']],
  },
  {
    setup: [['set', 'lx:persist', '1']],
    expiring: ['lx:persist'],
    access: [['persist', 'lx:persist']],
  },
  {
    setup: [['set', 'lx:object', '1']],
    expiring: ['lx:object'],
    access: [['object', 'encoding', 'lx:object']],
  },
  {
    setup: [['set', 'lx:rename', '1']],
    expiring: ['lx:rename'],
    access: [['rename', 'lx:rename', 'lx:rename2']],
  },
  {
    setup: [['set', 'lx:copy', '1']],
    expiring: ['lx:copy'],
    access: [['copy', 'lx:copy', 'lx:copy2']],
  },
  { setup: [['set', 'lx:move', '1']], expiring: ['lx:move'], access: [['move', 'lx:move', '1']] },
  {
    // An expired destination: Redis's write lookup of it says `expired` first.
    setup: [
      ['set', 'lx:rsrc', '1'],
      ['set', 'lx:rdst', '2'],
    ],
    expiring: ['lx:rdst'],
    access: [['rename', 'lx:rsrc', 'lx:rdst']],
  },
  {
    setup: [
      ['set', 'lx:csrc', '1'],
      ['set', 'lx:cdst', '2'],
    ],
    expiring: ['lx:cdst'],
    access: [['copy', 'lx:csrc', 'lx:cdst']],
  },
  {
    setup: [
      ['set', 'lx:nsrc', '1'],
      ['set', 'lx:ndst', '2'],
    ],
    expiring: ['lx:ndst'],
    access: [['renamenx', 'lx:nsrc', 'lx:ndst']],
  },
  {
    // The key in the target database expired: its `expired` is published there.
    setup: [
      ['select', '7'],
      ['set', 'lx:mv', '2'],
      // 10 ms (EXPIRE_MS), not 1: Redis 7.0 turns a PEXPIRE into DEL when
      // its clock ticks between its two reads of it (see expiredOnAccess).
      ['pexpire', 'lx:mv', '10'],
      ['select', '0'],
      ['set', 'lx:mv', '1'],
    ],
    expiring: [],
    access: [['move', 'lx:mv', '7']],
  },
  // The same with the expired record on disk.
  {
    setup: [['set', 'lxd:exists', '1']],
    expiring: ['lxd:exists'],
    disk: true,
    access: [['exists', 'lxd:exists']],
  },
  {
    setup: [['set', 'lxd:type', '1']],
    expiring: ['lxd:type'],
    disk: true,
    access: [['type', 'lxd:type']],
  },
  {
    setup: [['set', 'lxd:del', '1']],
    expiring: ['lxd:del'],
    disk: true,
    access: [['del', 'lxd:del']],
  },
  {
    setup: [['set', 'lxd:persist', '1']],
    expiring: ['lxd:persist'],
    disk: true,
    access: [['persist', 'lxd:persist']],
  },
  {
    setup: [['set', 'lxd:expire', '1']],
    expiring: ['lxd:expire'],
    disk: true,
    access: [['expire', 'lxd:expire', '100']],
  },
  {
    setup: [
      ['set', 'lxd:rsrc', '1'],
      ['set', 'lxd:rdst', '2'],
    ],
    expiring: ['lxd:rdst'],
    disk: true,
    access: [['rename', 'lxd:rsrc', 'lxd:rdst']],
  },
  {
    setup: [['set', 'lxd:copy', '1']],
    expiring: ['lxd:copy'],
    disk: true,
    access: [['copy', 'lxd:copy', 'lxd:copy2']],
  },
];

const EXPIRE_MS = 10;

function filler(prefix: string): string[] {
  const argv = ['mset'];
  for (let i = 0; i < 3000; i++) argv.push(`${prefix}:fill:${i}`, `value-${prefix}-${i}-xxxxxxxx`);
  return argv;
}

/**
 * Runs ROUNDS against the server on `port` with `g`, `x` and `m` events
 * on: every reply, and every frame the listener got, in order. `prepare`
 * runs first on the acting connection. Both servers run with active expiry
 * off, so each key is found expired by the access under test.
 */
async function expiredOnAccess(
  port: number,
  prepare: Command[] = [],
): Promise<{ replies: string[]; frames: string }> {
  const listener = await openConn(port);
  const actor = await openConn(port);
  try {
    for (const argv of prepare) await actor.exchange(argv);
    await listener.exchange(['psubscribe', '__key*__:*']);
    // No string events ($) nor new keys (n): only what the generic commands publish.
    await actor.exchange(['config', 'set', 'notify-keyspace-events', 'KEgxm']);
    const replies: string[] = [];
    let frames = '';
    const run = async (argv: Command) => {
      replies.push(`${argv.join(' ')} -> ${await actor.exchange(argv)}`);
      frames += await listener.exchange(null);
    };
    let round = 0;
    for (const r of ROUNDS) {
      for (const argv of r.setup) await run(argv);
      // Not 1 ms: Redis 7.0 turns PEXPIRE into DEL (event `del`) when the
      // clock ticks between its two reads of it, and that happens.
      for (const key of r.expiring) await run(['pexpire', key, String(EXPIRE_MS)]);
      if (r.disk === true) await run(filler(`lxf${round}`));
      await sleep(EXPIRE_MS + 20);
      for (const argv of r.access) await run(argv);
      round++;
    }
    await actor.exchange(['config', 'set', 'notify-keyspace-events', '']);
    // Whatever came after the last marker.
    frames += await listener.exchange(null);
    return { replies, frames };
  } finally {
    listener.close();
    actor.close();
  }
}

describe.skipIf(!hasRedisServer())(
  'a key found expired on access publishes expired, as in Redis',
  () => {
    let t: TestServer;
    let dir: string;
    let redis: { port: number; stop(): void };
    beforeAll(async () => {
      // The store's own active expiry cycle is off: it drops expired records
      // and publishes nothing (see the keys family's notes), and over the test
      // server's small index it would race the lookups under test.
      dir = await mkdtemp(join(tmpdir(), 'strata-notify-keys-'));
      t = await startServer({
        databases: { dir, store: { ...SMALL_STORE, checkpointOnClose: false, expiry: false } },
      });
      redis = await startRedis(['--enable-debug-command', 'local']);
    });
    afterAll(async () => {
      await t.stop();
      await rm(dir, { recursive: true, force: true });
      redis.stop();
    });

    test('expired (x), then keymiss (m) for read lookups, in memory and on disk', async () => {
      // Redis's active expiry is off too, so every key is found on access
      // (in a multi-key DEL, an expiry cycle would publish it out of turn).
      const want = await expiredOnAccess(redis.port, [['debug', 'set-active-expire', '0']]);
      const store = t.server.keyspace.get(0)!;
      const diskReads = store.counters.diskReads;
      const got = await expiredOnAccess(t.port);
      // The `disk` rounds read their expired records from the device.
      expect(store.counters.diskReads).toBeGreaterThan(diskReads);
      expect(got.replies).toEqual(want.replies);
      expect(got.frames).toBe(want.frames);
      // Every expiring key was published once as expired.
      const expiring = ROUNDS.reduce((n, r) => n + r.expiring.length, 0) + 1;
      expect(got.frames.split('$7\r\nexpired\r\n').length - 1).toBe(expiring);
    });
  },
);
