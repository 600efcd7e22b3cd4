import { spawn } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { DirLock, DirLockedError, processStart } from './dir-lock.js';

const OPTIONS = { file: 'test.pid', holder: 'test server' } as const;
const LOCK_FILE = OPTIONS.file;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'strata-lock-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** What a holder `pid` writes in the file. */
const held = (pid: number) => `${pid}\n${processStart(pid) ?? ''}\n`;

test('one holder at a time, in this process too; release frees the directory', () => {
  const dir = join(root, 'a', 'data');
  const lock = DirLock.acquire(dir, OPTIONS);
  expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe(held(process.pid));
  // A second open in the same process is refused: it would write over the first.
  expect(() => DirLock.acquire(dir, OPTIONS)).toThrow(DirLockedError);
  expect(() => DirLock.acquire(dir, OPTIONS)).toThrow(
    `in use by another test server (pid ${process.pid})`,
  );
  lock.release();
  expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  DirLock.acquire(dir, OPTIONS).release();
});

test('two names of one directory (a symlink) are one lock', () => {
  const dir = join(root, 'real');
  const lock = DirLock.acquire(dir, OPTIONS);
  symlinkSync(dir, join(root, 'alias'));
  expect(() => DirLock.acquire(join(root, 'alias'), OPTIONS)).toThrow(DirLockedError);
  lock.release();
  DirLock.acquire(join(root, 'alias'), OPTIONS).release();
});

test('forget() leaves the file as a crash would; the next open here takes it over', () => {
  const dir = join(root, 'f');
  DirLock.acquire(dir, OPTIONS).forget();
  expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe(held(process.pid));
  DirLock.acquire(dir, OPTIONS).release();
});

test('a live process holding it is refused, with its pid', async () => {
  const dir = join(root, 'b');
  const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  try {
    DirLock.acquire(dir, OPTIONS).release();
    writeFileSync(join(dir, LOCK_FILE), held(other.pid!));
    expect(() => DirLock.acquire(dir, OPTIONS)).toThrow(DirLockedError);
    expect(() => DirLock.acquire(dir, OPTIONS)).toThrow(
      `in use by another test server (pid ${other.pid})`,
    );
  } finally {
    other.kill('SIGKILL');
    await new Promise((resolve) => other.once('exit', resolve));
  }
  // Its process is gone: the file is stale and taken over.
  const lock = DirLock.acquire(dir, OPTIONS);
  expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe(held(process.pid));
  lock.release();
});

test.runIf(processStart(process.pid) !== null)(
  'a pid that now names another live process (reused after a crash) is stale',
  async () => {
    const dir = join(root, 'd');
    // A process that is no strata-server, alive while the server starts.
    const other = spawn('sleep', ['60']);
    await new Promise((resolve) => other.once('spawn', resolve));
    try {
      DirLock.acquire(dir, OPTIONS).release();
      // The file names its pid with another process's start time: a reused pid.
      writeFileSync(join(dir, LOCK_FILE), `${other.pid}\n1\n`);
      DirLock.acquire(dir, OPTIONS).release();
      // A file of the old form (a pid alone) naming a process whose command line is not strata's.
      writeFileSync(join(dir, LOCK_FILE), `${other.pid}\n`);
      DirLock.acquire(dir, OPTIONS).release();
      // The same live process, recorded with its own start time, holds it.
      writeFileSync(join(dir, LOCK_FILE), held(other.pid!));
      expect(() => DirLock.acquire(dir, OPTIONS)).toThrow(DirLockedError);
    } finally {
      other.kill('SIGKILL');
      await new Promise((resolve) => other.once('exit', resolve));
    }
  },
);

test('a file with garbage, or our own pid and no open here, is stale', () => {
  const dir = join(root, 'c');
  DirLock.acquire(dir, OPTIONS).release();
  writeFileSync(join(dir, LOCK_FILE), 'not a pid');
  DirLock.acquire(dir, OPTIONS).release();
  writeFileSync(join(dir, LOCK_FILE), `${process.pid}\n`);
  DirLock.acquire(dir, OPTIONS).release();
});
