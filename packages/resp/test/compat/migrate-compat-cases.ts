import type { CompatCase } from './compat-cases.js';

/**
 * MIGRATE's replies that need no target, against Redis 7.0 (recorded from
 * redis-server 7.0.15 in migrate-compat-expected.json with
 * `STRATA_RECORD_COMPAT=1 npx vitest run test/compat/migrate-compat.test.ts`
 * from packages/resp): its argument errors in Redis's order (options, then
 * the timeout, then the database), NOKEY, a target that refuses the
 * connection (port 1, and a port that is no number: atoi gives 0), the
 * keys COMMAND GETKEYS finds, COMMAND INFO of MIGRATE and RESTORE-ASKING,
 * and RESTORE-ASKING as RESTORE. Transfers themselves are in
 * test/commands/migrate-live.test.ts. Each case runs again in RESP3.
 */

/** redis-server 7.0.15's DUMP of the string "12345", hex. */
const INT_PAYLOAD = Buffer.from('00c139300a009d94ea2793fc08b9', 'hex').toString('latin1');

const CASES: readonly CompatCase[] = [
  {
    name: 'migrate: argument errors in Redis order',
    commands: [
      ['migrate', '127.0.0.1', '1', 'm1:k', '0'],
      ['migrate', '127.0.0.1', '1', 'm1:k', '0', '100', 'bogus'],
      ['migrate', '127.0.0.1', '1', 'm1:k', 'x', 'y', 'bogus'],
      ['migrate', '127.0.0.1', '1', 'm1:k', '0', '100', 'auth'],
      ['migrate', '127.0.0.1', '1', 'm1:k', '0', '100', 'auth2', 'user'],
      ['migrate', '127.0.0.1', '1', 'm1:k', '0', '100', 'keys', 'm1:a'],
      ['migrate', '127.0.0.1', '1', 'm1:k', '0', 'x'],
      ['migrate', '127.0.0.1', '1', 'm1:k', 'x', '100'],
      ['migrate', '127.0.0.1', '1', 'm1:k', '0', '1.5'],
      ['migrate', '127.0.0.1', '1', 'm1:k', '99999999999999999999', '100'],
      ['migrate', '127.0.0.1', '1', 'm1:k', '0', '100', 'copy', 'replace', 'bogus'],
    ],
  },
  {
    name: 'migrate: NOKEY, and targets that refuse the connection',
    commands: [
      ['migrate', '127.0.0.1', '1', 'm2:nokey', '0', '100'],
      ['migrate', '127.0.0.1', '1', '', '0', '100', 'keys', 'm2:a', 'm2:b'],
      ['migrate', '127.0.0.1', '1', '', '0', '100', 'copy', 'replace', 'auth', 'pw', 'keys'],
      ['migrate', '127.0.0.1', '1', 'm2:nokey', '0', '-5', 'auth2', 'u', 'p'],
      ['set', 'm2:k', 'v'],
      ['rpush', 'm2:l', 'a', 'b'],
      ['migrate', '127.0.0.1', '1', 'm2:k', '0', '100'],
      ['migrate', '127.0.0.1', '1', '', '3', '0', 'keys', 'm2:nokey', 'm2:l'],
      ['migrate', '127.0.0.1', 'notaport', 'm2:k', '0', '100', 'copy'],
      ['exists', 'm2:k', 'm2:l'],
      ['lrange', 'm2:l', '0', '-1'],
    ],
  },
  {
    name: 'migrate and restore-asking: keys, COMMAND INFO, RESTORE-ASKING as RESTORE',
    commands: [
      ['command', 'getkeys', 'migrate', 'h', '1', 'm3:k', '0', '100'],
      ['command', 'getkeys', 'migrate', 'h', '1', '', '0', '100', 'copy', 'keys', 'm3:a', 'm3:b'],
      ['command', 'getkeys', 'migrate', 'h', '1', 'm3:k', '0', '100', 'keys', 'm3:a'],
      ['command', 'info', 'migrate', 'restore-asking'],
      ['restore-asking', 'm3:r', '0', INT_PAYLOAD],
      ['get', 'm3:r'],
      ['restore-asking', 'm3:r', '0', INT_PAYLOAD],
      ['restore-asking', 'm3:r', '0', INT_PAYLOAD, 'replace'],
      ['restore-asking', 'm3:r'],
    ],
  },
];

export const MIGRATE_COMPAT_CASES: readonly CompatCase[] = [
  ...CASES,
  ...CASES.map((c) => ({
    ...c,
    name: `${c.name} (RESP3)`,
    resp3: true,
    commands: c.commands.map((argv) => argv.map((a) => a.replace(/^m(\d+):/, 'rm$1:'))),
  })),
];
