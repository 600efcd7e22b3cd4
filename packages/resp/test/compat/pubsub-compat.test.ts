import { PUBSUB_COMPAT_CASES } from './pubsub-compat-cases.js';
import { describeRecordedCompat } from './recorded-compat.js';
import { runSession } from './session-runner.js';

/**
 * Pub/Sub replies and push frames byte for byte against Redis 7, over
 * several connections (see pubsub-compat-cases.ts): compared with the
 * recorded transcripts always, and with a live redis-server when installed.
 */
describeRecordedCompat({
  cases: PUBSUB_COMPAT_CASES,
  run: runSession,
  expectedFile: new URL('./pubsub-compat-expected.json', import.meta.url),
  strataTitle: 'pub/sub replies and messages are those of Redis 7',
  redisTitle: 'the recorded pub/sub transcripts are what redis-server answers',
});
