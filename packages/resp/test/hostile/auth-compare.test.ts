import * as crypto from 'node:crypto';
import { describe, expect, test, vi } from 'vitest';
import { AclUsers } from '../../src/commands/index.js';
import { CommandTable } from '../../src/server/command-table.js';
import { Keyspace } from '../../src/server/keyspace.js';
import { DEFAULT_OUTPUT_LIMITS, ServerState } from '../../src/server/server-state.js';

// The compare is watched, not timed (timings in unit tests are noise): every
// password check must go through timingSafeEqual on two equal-length
// digests, so how long it takes depends on neither the guess's length nor
// where it differs.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

function state(requirepass: string | null): ServerState {
  const keyspace = new Keyspace({
    count: 1,
    open: () => Promise.reject(new Error('no store in this test')),
    close: () => Promise.resolve(),
  });
  return new ServerState(
    CommandTable.from([]),
    keyspace,
    {
      requirepass,
      maxclients: 10,
      maxBulkLength: 1 << 20,
      outputLimits: DEFAULT_OUTPUT_LIMITS,
      queryBufferLimit: 1 << 30,
      protectedMode: true,
      notifyKeyspaceEvents: 0,
      scriptMemory: 1 << 30,
      idleTimeout: 0,
      tcpKeepAlive: 0,
    },
    { users: (table) => new AclUsers(table) },
  );
}

describe('requirepass compare', () => {
  test('every guess is compared in constant time: two 32-byte digests through timingSafeEqual', () => {
    const compare = vi.mocked(crypto.timingSafeEqual);
    const s = state('correct horse battery staple');
    const guesses = [
      '',
      'c',
      'correct',
      'correct horse battery stapl',
      'correct horse battery staple!',
      'x'.repeat(10_000),
    ];
    for (const g of guesses) {
      compare.mockClear();
      expect(s.checkPassword(Buffer.from(g))).toBe(false);
      expect(compare).toHaveBeenCalledTimes(1);
      const [a, b] = compare.mock.calls[0]!;
      expect(a.byteLength).toBe(32);
      expect(b.byteLength).toBe(32);
    }
    compare.mockClear();
    expect(s.checkPassword(Buffer.from('correct horse battery staple'))).toBe(true);
    expect(compare).toHaveBeenCalledTimes(1);
  });

  test('no password configured: nothing matches', () => {
    expect(state(null).checkPassword(Buffer.from(''))).toBe(false);
  });
});
