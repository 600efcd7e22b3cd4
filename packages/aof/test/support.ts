import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AppendOnlyFile,
  type AppendOnlyFileOptions,
  type ReplayOptions,
  type ReplayResult,
} from '../src/append-only-file.js';
import type { AofFileHandle, AofFileSystem } from '../src/file-system.js';
import { nodeFileSystem } from '../src/file-system.js';

/** A temp directory per test, removed afterwards. */
export async function tempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'strata-aof-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export const args = (...a: string[]): Buffer[] => a.map((x) => Buffer.from(x));

/** An AOF opened and replayed: its commands as `db:arg arg...`, and its warnings. */
export interface Replayed {
  aof: AppendOnlyFile;
  replayed: string[];
  result: ReplayResult;
  warnings: string[];
}

/** Opens the AOF in `options.dir` (policy `always` unless given) and replays it. */
export async function openReplayed(
  options: Partial<AppendOnlyFileOptions> & { dir: string },
  replay: ReplayOptions = {},
): Promise<Replayed> {
  const warnings: string[] = [];
  const aof = await AppendOnlyFile.open({
    policy: 'always',
    logger: { warn: (m) => warnings.push(m) },
    ...options,
  });
  const replayed: string[] = [];
  const result = await aof.replay((db, argv) => {
    replayed.push(`${db}:${argv.map((a) => a.toString()).join(' ')}`);
  }, replay);
  return { aof, replayed, result, warnings };
}

/**
 * The real file system with switchable faults, for unit tests of this
 * package only: writes can fail (ENOSPC, or after writing part of the
 * data) and syncs can fail (EIO), counted per call.
 */
export class FaultyFileSystem implements AofFileSystem {
  failWrites: 'no' | 'enospc' | 'partial' = 'no';
  failSyncs = false;
  failManifest = false;
  writes = 0;
  syncs = 0;
  /** Resolves each sync only after this promise (to hold a sync "in flight"). */
  syncGate: Promise<void> | null = null;

  async open(path: string, create: 'new' | 'never'): Promise<AofFileHandle> {
    const h = await nodeFileSystem.open(path, create);
    return {
      write: (data, position) => {
        this.writes++;
        if (this.failWrites === 'enospc') throw errno('ENOSPC', 'No space left on device');
        if (this.failWrites === 'partial' && data.length > 1) {
          h.write(data.subarray(0, data.length >> 1), position);
          throw errno('ENOSPC', 'No space left on device');
        }
        return h.write(data, position);
      },
      read: (into, position) => h.read(into, position),
      datasync: async () => {
        this.syncs++;
        if (this.syncGate !== null) await this.syncGate;
        if (this.failSyncs) throw errno('EIO', 'Input/output error');
        return h.datasync();
      },
      truncate: (n) => h.truncate(n),
      size: () => h.size(),
      close: () => h.close(),
    };
  }
  readFile = nodeFileSystem.readFile;
  writeFileAtomic = async (path: string, data: Uint8Array): Promise<void> => {
    if (this.failManifest) throw errno('ENOSPC', 'No space left on device');
    return nodeFileSystem.writeFileAtomic(path, data);
  };
  list = nodeFileSystem.list;
  remove = nodeFileSystem.remove;
  mkdirp = nodeFileSystem.mkdirp;
  syncDir = nodeFileSystem.syncDir;
}

function errno(code: string, message: string): NodeJS.ErrnoException {
  const e: NodeJS.ErrnoException = new Error(`${code}: ${message.toLowerCase()}, write`);
  e.code = code;
  return e;
}
