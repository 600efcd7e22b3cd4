import { constants, writeSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/** An open AOF file: positioned writes, data sync, truncation. */
export interface AofFileHandle {
  /**
   * Writes `data` at `position`: the bytes written (maybe fewer), or a
   * promise of them. The node implementation writes synchronously (into the
   * page cache, as Redis's write(2) in its event loop): one thread-pool hop
   * less per batch; only the sync waits on the thread pool.
   */
  write(data: Uint8Array, position: number): number | Promise<number>;
  read(into: Uint8Array, position: number): Promise<number>;
  datasync(): Promise<void>;
  truncate(length: number): Promise<void>;
  size(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The file operations the AOF needs, so unit tests can put a failing file
 * system in front of the real one. `nodeFileSystem` is the real one.
 */
export interface AofFileSystem {
  /** Opens for read and write; `create: 'new'` fails if it exists, `'never'` if it does not. */
  open(path: string, create: 'new' | 'never'): Promise<AofFileHandle>;
  readFile(path: string): Promise<Buffer | null>;
  /** Replaces `path` with `data` atomically and durably (temp file, sync, rename, directory sync). */
  writeFileAtomic(path: string, data: Uint8Array): Promise<void>;
  list(dir: string): Promise<string[]>;
  remove(path: string): Promise<void>;
  mkdirp(dir: string): Promise<void>;
  syncDir(dir: string): Promise<void>;
}

export const nodeFileSystem: AofFileSystem = {
  async open(path, create) {
    const flags =
      create === 'new' ? constants.O_RDWR | constants.O_CREAT | constants.O_EXCL : constants.O_RDWR;
    const h = await open(path, flags, 0o644);
    return {
      write: (data, position) => writeSync(h.fd, data, 0, data.length, position),
      read: async (into, position) => (await h.read(into, 0, into.length, position)).bytesRead,
      datasync: () => h.datasync(),
      truncate: (length) => h.truncate(length),
      size: async () => (await h.stat()).size,
      close: () => h.close(),
    };
  },
  async readFile(path) {
    try {
      return await readFile(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  },
  async writeFileAtomic(path, data) {
    const tmp = `${path}.tmp`;
    const h = await open(tmp, 'w', 0o644);
    try {
      await h.write(data, 0, data.length, 0);
      await h.datasync();
    } finally {
      await h.close();
    }
    await rename(tmp, path);
    await nodeFileSystem.syncDir(dirname(path));
  },
  list: (dir) => readdir(dir),
  async remove(path) {
    try {
      await unlink(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  },
  async mkdirp(dir) {
    await mkdir(dir, { recursive: true });
  },
  async syncDir(dir) {
    const h = await open(dir, 'r');
    try {
      await h.sync();
    } finally {
      await h.close();
    }
  },
};
