import { expect, test } from 'vitest';
import type { LogLevel } from './config.js';
import { formatTimestamp, Logger, seconds } from './logger.js';

const at = new Date(2026, 10, 29, 21, 50, 1, 123);

function capture(level: LogLevel): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = new Logger({ level, write: (l) => lines.push(l), now: () => at, pid: 4242 });
  return { logger, lines };
}

test('timestamps look like Redis', () => {
  expect(formatTimestamp(at)).toBe('29 Nov 2026 21:50:01.123');
  expect(formatTimestamp(new Date(2027, 0, 5, 3, 4, 5, 6))).toBe('05 Jan 2027 03:04:05.006');
});

test('lines carry the pid, role, time and level mark', () => {
  const { logger, lines } = capture('debug');
  logger.debug('d');
  logger.verbose('v');
  logger.notice('Ready to accept connections tcp');
  logger.warning('w');
  logger.signal('Received SIGINT scheduling shutdown...');
  expect(lines).toEqual([
    '4242:M 29 Nov 2026 21:50:01.123 . d\n',
    '4242:M 29 Nov 2026 21:50:01.123 - v\n',
    '4242:M 29 Nov 2026 21:50:01.123 * Ready to accept connections tcp\n',
    '4242:M 29 Nov 2026 21:50:01.123 # w\n',
    `4242:signal-handler (${Math.floor(at.getTime() / 1000)}) Received SIGINT scheduling shutdown...\n`,
  ]);
});

test.each([
  ['debug', 4],
  ['verbose', 3],
  ['notice', 2],
  ['warning', 1],
  ['nothing', 0],
] as const)('level %s keeps %d of 4 levels', (level, kept) => {
  const { logger, lines } = capture(level);
  logger.debug('d');
  logger.verbose('v');
  logger.notice('n');
  logger.warning('w');
  expect(lines).toHaveLength(kept);
});

test('seconds have three decimals', () => {
  expect(seconds(12.4)).toBe('0.012');
  expect(seconds(2500)).toBe('2.500');
});
