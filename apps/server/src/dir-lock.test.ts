import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { tempDir } from '../test/strata-process.js';
import { DirLock, DirLockedError, LOCK_FILE, processStart } from './dir-lock.js';

/** What a holder `pid` writes in the file. */
const held = (pid: number) => `${pid}\n${processStart(pid) ?? ''}\n`;

let tmp: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  tmp = await tempDir('strata-lock-');
});
afterAll(async () => {
  await tmp.remove();
});

test('one holder at a time; release frees the directory', () => {
  const dir = join(tmp.path, 'a', 'data');
  const lock = DirLock.acquire(dir);
  expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe(held(process.pid));
  lock.release();
  expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  DirLock.acquire(dir).release();
});

test('a live process holding it is refused, with its pid', async () => {
  const dir = join(tmp.path, 'b');
  const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  try {
    DirLock.acquire(dir).release();
    writeFileSync(join(dir, LOCK_FILE), held(other.pid!));
    expect(() => DirLock.acquire(dir)).toThrow(DirLockedError);
    expect(() => DirLock.acquire(dir)).toThrow(
      `in use by another strata-server (pid ${other.pid})`,
    );
  } finally {
    other.kill('SIGKILL');
    await new Promise((resolve) => other.once('exit', resolve));
  }
  // Its process is gone: the file is stale and taken over.
  const lock = DirLock.acquire(dir);
  expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe(held(process.pid));
  lock.release();
});

test.runIf(processStart(process.pid) !== null)(
  'a pid that now names another live process (reused after a crash) is stale',
  async () => {
    const dir = join(tmp.path, 'd');
    // A process that is no strata-server, alive while the server starts.
    const other = spawn('sleep', ['60']);
    await new Promise((resolve) => other.once('spawn', resolve));
    try {
      DirLock.acquire(dir).release();
      // The file names its pid with another process's start time: a reused pid.
      writeFileSync(join(dir, LOCK_FILE), `${other.pid}\n1\n`);
      DirLock.acquire(dir).release();
      // A file of the old form (a pid alone) naming a process whose command line is not strata's.
      writeFileSync(join(dir, LOCK_FILE), `${other.pid}\n`);
      DirLock.acquire(dir).release();
      // The same live process, recorded with its own start time, holds it.
      writeFileSync(join(dir, LOCK_FILE), held(other.pid!));
      expect(() => DirLock.acquire(dir)).toThrow(DirLockedError);
    } finally {
      other.kill('SIGKILL');
      await new Promise((resolve) => other.once('exit', resolve));
    }
  },
);

test('a file with garbage or our own pid is stale', () => {
  const dir = join(tmp.path, 'c');
  DirLock.acquire(dir).release();
  writeFileSync(join(dir, LOCK_FILE), 'not a pid');
  DirLock.acquire(dir).release();
  writeFileSync(join(dir, LOCK_FILE), `${process.pid}\n`);
  DirLock.acquire(dir).release();
});
