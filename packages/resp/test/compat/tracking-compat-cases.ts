import type { SessionCase } from './session-runner.js';

/**
 * Client-side caching sessions (CLIENT TRACKING and friends) whose replies
 * and invalidation pushes must be byte for byte Redis 7's
 * (`tracking-compat-expected.json`, recorded from redis-server 7.0 with
 * `STRATA_RECORD_COMPAT=1`). Connection 0 tracks, connection 1 writes.
 * Client ids differ between servers: cases that redirect name them as
 * `$id:N` and never print them.
 */

/** Enough keys to push the test server's earlier records to disk (64 KiB of memory). */
function filler(prefix: string): [number, ...string[]] {
  const args: string[] = [];
  for (let i = 0; i < 3000; i++) args.push(`${prefix}:${i}`, 'x'.repeat(20));
  return [1, 'mset', ...args];
}

export const TRACKING_COMPAT_CASES: readonly SessionCase[] = [
  {
    name: 'default mode: a read key is invalidated once when another client writes it',
    resp3: [0],
    steps: [
      [0, 'client', 'tracking', 'on'],
      [0, 'client', 'getredir'],
      [0, 'client', 'trackinginfo'],
      [0, 'get', 'tr:a'],
      [1, 'set', 'tr:a', '1'],
      [1, 'set', 'tr:a', '2'],
      [0, 'get', 'tr:a'],
      [0, 'mget', 'tr:b', 'tr:c'],
      [1, 'mset', 'tr:b', '1', 'tr:c', '2'],
      [0, 'get', 'tr:a'],
      [0, 'set', 'tr:a', 'mine'],
      [0, 'get', 'tr:a'],
      [1, 'del', 'tr:a', 'tr:b', 'tr:c'],
      [0, 'client', 'tracking', 'off'],
      [0, 'client', 'getredir'],
      [0, 'client', 'trackinginfo'],
    ],
  },
  {
    name: 'a flush sends every tracking client a null invalidation',
    resp3: [0],
    steps: [
      [0, 'client', 'tracking', 'on'],
      [0, 'get', 'trf:a'],
      [1, 'flushall'],
      [1, 'set', 'trf:a', '1'],
      [0, 'get', 'trf:a'],
      [0, 'flushdb'],
      [0, 'client', 'tracking', 'off'],
    ],
  },
  {
    name: 'OPTIN: only the read after CLIENT CACHING YES is tracked',
    resp3: [0],
    steps: [
      [0, 'client', 'tracking', 'on', 'optin'],
      [0, 'get', 'tri:a'],
      [1, 'set', 'tri:a', '1'],
      {
        on: 0,
        pipeline: [
          ['client', 'caching', 'yes'],
          ['client', 'trackinginfo'],
          ['get', 'tri:a'],
          ['client', 'trackinginfo'],
          ['get', 'tri:b'],
        ],
      },
      [1, 'mset', 'tri:a', '2', 'tri:b', '2'],
      [0, 'client', 'caching', 'no'],
      [0, 'client', 'tracking', 'on', 'optout'],
      [0, 'client', 'tracking', 'off'],
    ],
  },
  {
    name: 'OPTOUT: every read is tracked but the one after CLIENT CACHING NO',
    resp3: [0],
    steps: [
      [0, 'client', 'tracking', 'on', 'optout'],
      [0, 'get', 'tro:a'],
      {
        on: 0,
        pipeline: [
          ['client', 'caching', 'no'],
          ['client', 'trackinginfo'],
          ['get', 'tro:b'],
          ['get', 'tro:c'],
        ],
      },
      [1, 'mset', 'tro:a', '1', 'tro:b', '1', 'tro:c', '1'],
      [0, 'client', 'caching', 'yes'],
      [0, 'client', 'tracking', 'off'],
    ],
  },
  {
    name: 'NOLOOP: no invalidation for the client’s own writes',
    resp3: [0],
    steps: [
      [0, 'client', 'tracking', 'on', 'noloop'],
      [0, 'get', 'trn:a'],
      [0, 'set', 'trn:a', '1'],
      [1, 'set', 'trn:a', '2'],
      [0, 'get', 'trn:a'],
      [1, 'set', 'trn:a', '3'],
      [0, 'client', 'trackinginfo'],
      [0, 'client', 'tracking', 'off'],
    ],
  },
  {
    name: 'BCAST with prefixes: changed keys in byte order, one push per prefix; NOLOOP skips its own',
    resp3: [0, 2],
    steps: [
      [0, 'client', 'tracking', 'on', 'bcast', 'prefix', 'trb:a', 'prefix', 'trb:b'],
      [0, 'client', 'trackinginfo'],
      [1, 'mset', 'trb:b2', 'y', 'trb:a3', 'z', 'trb:a1', 'q', 'trb:c', 'w'],
      [1, 'set', 'trb:a1', 'again'],
      [2, 'client', 'tracking', 'on', 'bcast', 'noloop', 'prefix', 'trb:a'],
      [2, 'set', 'trb:a9', 'mine'],
      [1, 'set', 'trb:a8', 'theirs'],
      [0, 'client', 'tracking', 'on', 'bcast', 'prefix', 'trb:b'],
      [0, 'client', 'tracking', 'on', 'bcast', 'prefix', 'trb:bb'],
      [0, 'client', 'tracking', 'on', 'bcast', 'prefix', 'trb:x', 'prefix', 'trb:xy'],
      [0, 'client', 'tracking', 'off'],
      [2, 'client', 'tracking', 'off'],
      [0, 'client', 'tracking', 'on', 'bcast'],
      [1, 'set', 'anything', '1'],
      [0, 'client', 'trackinginfo'],
      [0, 'client', 'tracking', 'off'],
      [1, 'del', 'trb:b2', 'trb:a3', 'trb:a1', 'trb:c', 'trb:a9', 'trb:a8', 'anything'],
    ],
  },
  {
    name: 'REDIRECT to a RESP2 client subscribed to __redis__:invalidate',
    steps: [
      [2, 'subscribe', '__redis__:invalidate'],
      [0, 'client', 'tracking', 'on', 'redirect', '$id:2'],
      [0, 'get', 'trr:a'],
      [1, 'set', 'trr:a', '1'],
      [0, 'get', 'trr:a'],
      [1, 'flushall'],
      [0, 'client', 'tracking', 'off'],
      [2, 'unsubscribe'],
    ],
  },
  {
    name: 'REDIRECT to a RESP3 client; a RESP2 tracker without redirect gets nothing',
    resp3: [2],
    steps: [
      [0, 'client', 'tracking', 'on', 'redirect', '$id:2'],
      [0, 'get', 'trr3:a'],
      [1, 'set', 'trr3:a', '1'],
      [1, 'client', 'tracking', 'on'],
      [1, 'get', 'trr3:b'],
      [0, 'set', 'trr3:b', '1'],
      [1, 'client', 'tracking', 'off'],
      [0, 'client', 'tracking', 'off'],
      [1, 'del', 'trr3:a', 'trr3:b'],
    ],
  },
  {
    name: 'CLIENT TRACKING, CACHING: errors in Redis’s order and words',
    steps: [
      [0, 'client', 'tracking'],
      [0, 'client', 'tracking', 'maybe'],
      [0, 'client', 'tracking', 'on', 'bogus'],
      [0, 'client', 'tracking', 'on', 'redirect'],
      [0, 'client', 'tracking', 'on', 'redirect', 'x'],
      [0, 'client', 'tracking', 'on', 'redirect', '999999'],
      [0, 'client', 'tracking', 'on', 'prefix', 'a'],
      [0, 'client', 'tracking', 'on', 'optin', 'optout'],
      [0, 'client', 'tracking', 'on', 'bcast', 'optin'],
      [0, 'client', 'tracking', 'on', 'bcast', 'prefix', 'ab', 'prefix', 'a'],
      [0, 'client', 'caching', 'yes'],
      [0, 'client', 'caching'],
      [0, 'client', 'tracking', 'on'],
      [0, 'client', 'caching', 'yes'],
      [0, 'client', 'caching', 'no'],
      [0, 'client', 'caching', 'maybe'],
      [0, 'client', 'tracking', 'on', 'bcast'],
      [0, 'client', 'tracking', 'on', 'optin'],
      [0, 'client', 'tracking', 'on', 'optout'],
      [0, 'client', 'tracking', 'off'],
      [0, 'client', 'tracking', 'off'],
      [0, 'client', 'getredir', 'x'],
      [0, 'client', 'trackinginfo', 'x'],
    ],
  },
  {
    name: 'RESET turns tracking off',
    resp3: [0],
    steps: [
      [0, 'client', 'tracking', 'on', 'bcast', 'prefix', 'rst:'],
      [0, 'reset'],
      [0, 'client', 'trackinginfo'],
      [1, 'set', 'rst:a', '1'],
      [0, 'client', 'tracking', 'on'],
      [0, 'get', 'rst:a'],
      [0, 'reset'],
      [1, 'set', 'rst:a', '2'],
      [1, 'del', 'rst:a'],
    ],
  },
  {
    name: 'OPTIN: CLIENT CACHING YES lasts through MULTI .. EXEC',
    resp3: [0],
    steps: [
      [0, 'client', 'tracking', 'on', 'optin'],
      {
        on: 0,
        pipeline: [
          ['client', 'caching', 'yes'],
          ['multi'],
          ['get', 'trx:a'],
          ['get', 'trx:b'],
          ['exec'],
          ['get', 'trx:c'],
        ],
      },
      [1, 'mset', 'trx:a', '1', 'trx:b', '1', 'trx:c', '1'],
      [0, 'client', 'tracking', 'off'],
      [1, 'del', 'trx:a', 'trx:b', 'trx:c'],
    ],
  },
  {
    name: 'reads inside MULTI are tracked; the invalidation of one’s own write follows EXEC',
    resp3: [0],
    steps: [
      [0, 'client', 'tracking', 'on'],
      [0, 'multi'],
      [0, 'get', 'trm:a'],
      [0, 'set', 'trm:a', '1'],
      [0, 'get', 'trm:b'],
      [0, 'exec'],
      [1, 'set', 'trm:b', '1'],
      [0, 'client', 'tracking', 'off'],
      [1, 'del', 'trm:a', 'trm:b'],
    ],
  },
  {
    name: 'keys on disk: a tracked key read from the device is invalidated when written',
    resp3: [0],
    steps: [
      [1, 'set', 'trd:a', 'cold'],
      [1, 'set', 'trd:b', 'cold'],
      filler('trd-fill'),
      [0, 'client', 'tracking', 'on'],
      [0, 'get', 'trd:a'],
      [0, 'mget', 'trd:b', 'trd-fill:5'],
      filler('trd-fill2'),
      [1, 'set', 'trd:a', 'new'],
      [1, 'append', 'trd:b', '!'],
      [0, 'client', 'tracking', 'off'],
      [1, 'flushall'],
    ],
  },
];
