import { NOTIFY_STRINGS_CASES } from './notify-strings-cases.js';
import { describeRecordedCompat } from './recorded-compat.js';
import { runSession } from './session-runner.js';

/**
 * Keyspace notifications of the string and bit commands byte for byte
 * against Redis 7, over a listening connection and a writing one (see
 * notify-strings-cases.ts): compared with the recorded transcripts always,
 * and with a live redis-server when installed.
 */
describeRecordedCompat({
  cases: NOTIFY_STRINGS_CASES,
  run: runSession,
  expectedFile: new URL('./notify-strings-compat-expected.json', import.meta.url),
  strataTitle: 'string and bit keyspace notifications are those of Redis 7',
  redisTitle: 'the recorded string and bit notifications are what redis-server answers',
});
