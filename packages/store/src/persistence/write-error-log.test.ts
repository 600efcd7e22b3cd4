import { expect, test } from 'vitest';
import { recordingLogger } from '../../test/support/recording-logger.js';
import { logWriteErrors, type WriteErrorSource, type WriteFailure } from './write-error-log.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A stand-in for a store's failure state (this module's only input). */
interface Failure {
  readonly message: string;
}

function failingStore(): WriteErrorSource<Failure> & { writeError: Failure | null } {
  return { writeError: null, log: { onWriteError: null } };
}

test('a failure episode is logged once with the directory, and its end once', async () => {
  const lines: string[] = [];
  const logger = recordingLogger(lines);
  const store = failingStore();
  const heard: string[] = [];
  store.log.onWriteError = (e) => heard.push(e.message);
  logWriteErrors(store, 'DB 0', '/data/0', logger, 5);

  const enospc = {
    message: 'log: write failed in segment 0 at 20963328: ENOSPC: no space left on device, write',
  };
  store.writeError = enospc;
  for (let i = 0; i < 20; i++) store.log.onWriteError!(enospc);
  expect(heard).toHaveLength(20); // the listener set before still hears every one
  await sleep(30);
  expect(lines).toEqual([
    `DB 0: cannot write to its log in /data/0: ${enospc.message}. Writes are refused (MISCONF) until it can write again; retrying every second.\n`,
  ]);

  store.writeError = null;
  for (let i = 0; i < 100 && lines.length < 2; i++) await sleep(5);
  expect(lines[1]).toBe('DB 0: its log in /data/0 can be written again; writes are accepted.\n');

  // A second episode is a new line.
  store.writeError = enospc;
  store.log.onWriteError!(enospc);
  expect(lines).toHaveLength(3);
  store.writeError = null;
  for (let i = 0; i < 100 && lines.length < 4; i++) await sleep(5);
  expect(lines).toHaveLength(4);
});

test('the line names the segment file and the OS code when the device gives them', () => {
  const lines: string[] = [];
  const logger = recordingLogger(lines);
  const store: WriteErrorSource<WriteFailure> & { writeError: WriteFailure | null } = {
    writeError: null,
    log: { onWriteError: null },
  };
  logWriteErrors(store, 'DB 3', '/data/3', logger, 60_000);
  const e = {
    message: 'log: write failed in segment 2 at 2147487744: EIO: i/o error, write',
    segment: 2,
    osCode: 'EIO',
  };
  store.writeError = e;
  store.log.onWriteError!(e);
  store.log.onWriteError!(e);
  expect(lines).toEqual([
    `DB 3: cannot write to its log file /data/3/log.2 (EIO): ${e.message}. Writes are refused (MISCONF) until it can write again; retrying every second.\n`,
  ]);
  store.writeError = null;
});
