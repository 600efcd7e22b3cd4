import {
  NOTIFY_HASHES_SETS_CASES,
  NOTIFY_HASHES_SETS_RANDOM_CASES,
} from './notify-hashes-sets-cases.js';
import { describeRecordedCompat } from './recorded-compat.js';
import { runSession, type SessionCase } from './session-runner.js';

/**
 * Keyspace notifications of the hash and set commands byte for byte
 * against Redis 7, a subscriber and a writer on two connections (see
 * notify-hashes-sets-cases.ts): compared with the recorded transcripts
 * always, and with a live redis-server when installed.
 */
describeRecordedCompat({
  cases: NOTIFY_HASHES_SETS_CASES,
  run: runSession,
  expectedFile: new URL('./notify-hashes-sets-compat-expected.json', import.meta.url),
  strataTitle: 'hash and set keyspace events are those of Redis 7',
  redisTitle: 'the recorded hash and set keyspace events are what redis-server publishes',
});

/** Connection 1's replies (a random pop's choice) masked: what the subscriber received stays. */
async function runMasked(port: number, c: SessionCase): Promise<string> {
  const text = await runSession(port, c);
  return text
    .split(/\n(?=\[\d+\] )/)
    .map((entry) => (entry.startsWith('[1] ') ? '[1] <reply>' : entry))
    .join('\n');
}

describeRecordedCompat({
  cases: NOTIFY_HASHES_SETS_RANDOM_CASES,
  run: runMasked,
  expectedFile: new URL('./notify-hashes-sets-random-expected.json', import.meta.url),
  strataTitle: 'random pops publish the keyspace events of Redis 7',
  redisTitle: 'the recorded random-pop keyspace events are what redis-server publishes',
});
