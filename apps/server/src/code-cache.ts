import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';

/**
 * Runs a CommonJS bundle with V8's code cache, as Node 22's
 * `module.enableCompileCache()` does for every module (Node 20 has no such
 * switch): compiling strata-server's ~1.8 MB of JavaScript is a third of an
 * empty server's start (~55 of ~175 ms measured), and the cache (the
 * bytecode of what the first start compiled) skips it on the next.
 *
 * The cache is only ever a shortcut: a file that is missing, unreadable,
 * damaged (its checksum), from another build (the bundle's checksum is in its
 * name: V8 itself would take a cache made for any source of the same length)
 * or rejected by V8 (another Node or other V8 flags) is compiled as if there
 * were none, and a new cache is written after the start.
 */

/** Where the cache of one run went: what the start used, and what it wrote. */
export type CodeCacheOutcome =
  | { readonly kind: 'off' }
  | { readonly kind: 'used'; readonly file: string }
  | { readonly kind: 'compiled'; readonly file: string; readonly why: CompileReason };

/** Why a start compiled the bundle instead of using a cache. */
export type CompileReason = 'none' | 'damaged' | 'rejected';

const MAGIC = Buffer.from('STRATAV8');
/** magic, crc32 of the payload, payload length. */
const HEADER_BYTES = MAGIC.length + 8;

/**
 * The cache directory: `STRATA_CODE_CACHE` (a directory, or `off`), else
 * `$XDG_CACHE_HOME/strata`, else `~/.cache/strata`, else the OS temp directory.
 */
export function codeCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const named = env.STRATA_CODE_CACHE;
  if (named === 'off') return null;
  // Resolved now: a daemon changes its directory after the start.
  if (named !== undefined && named !== '') return resolve(named);
  if (env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== '') {
    return join(env.XDG_CACHE_HOME, 'strata');
  }
  const home = homedir();
  return home !== '' ? join(home, '.cache', 'strata') : join(tmpdir(), 'strata-cache');
}

/** The cache file of `source` for this Node and CPU: one per build of the bundle. */
export function codeCacheFile(dir: string, bundle: string, source: string): string {
  const sum = crc32(source).toString(16).padStart(8, '0');
  return join(dir, `${basename(bundle)}-${sum}${cacheSuffix()}`);
}

function cacheSuffix(): string {
  return `-${process.version}-${process.arch}.v8cache`;
}

/** The cache's payload if `bytes` is a whole, undamaged cache file. */
function payloadOf(bytes: Buffer): Buffer | null {
  if (bytes.length < HEADER_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  const sum = bytes.readUInt32LE(MAGIC.length);
  const length = bytes.readUInt32LE(MAGIC.length + 4);
  const payload = bytes.subarray(HEADER_BYTES);
  return payload.length === length && crc32(payload) === sum ? payload : null;
}

/** Writes a cache file whole (a temporary file renamed into place), and removes other builds' caches. */
function writeCache(file: string, bundle: string, payload: Buffer): void {
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header);
  header.writeUInt32LE(crc32(payload), MAGIC.length);
  header.writeUInt32LE(payload.length, MAGIC.length + 4);
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.concat([header, payload]));
  renameSync(tmp, file);
  // Another build's cache (for this Node) is never used again.
  const prefix = `${basename(bundle)}-`;
  for (const name of readdirSync(dir)) {
    if (name.startsWith(prefix) && name.endsWith(cacheSuffix()) && name !== basename(file)) {
      rmSync(join(dir, name), { force: true });
    }
  }
}

export interface CachedRun {
  readonly outcome: CodeCacheOutcome;
  /** The bundle's `module.exports`. */
  readonly exports: unknown;
  /**
   * Writes the cache if this run compiled the bundle: call it once the
   * program has run its start (V8 then includes the functions the start
   * compiled lazily). A failure to write is returned, never thrown.
   */
  saveCache(): Error | null;
}

/**
 * Loads and runs the CommonJS file `bundle` as `require` would, with the
 * code cache in `cacheDir` (null: none).
 */
export function runWithCodeCache(bundle: string, cacheDir: string | null): CachedRun {
  // esbuild writes ASCII (it escapes every other character in strings,
  // templates and names); the few other bytes are in comments, where
  // reading them as Latin-1 changes nothing. Latin-1 is a copy; UTF-8 a
  // decode (~3 ms of 1.8 MB).
  const source = readFileSync(bundle, 'latin1');
  const file = cacheDir === null ? null : codeCacheFile(cacheDir, bundle, source);
  let cached: Buffer | null = null;
  let why: CompileReason = 'none';
  if (file !== null) {
    try {
      cached = payloadOf(readFileSync(file));
      if (cached === null) why = 'damaged';
    } catch {
      // No cache yet (or unreadable): compiled.
    }
  }
  // The wrapper `require` puts around a CommonJS module.
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) { ${source}\n})`,
    {
      filename: bundle,
      ...(cached === null ? {} : { cachedData: cached }),
    },
  );
  if (cached !== null && script.cachedDataRejected === true) why = 'rejected';
  const used = cached !== null && script.cachedDataRejected !== true;
  const outcome: CodeCacheOutcome =
    file === null
      ? { kind: 'off' }
      : used
        ? { kind: 'used', file }
        : { kind: 'compiled', file, why };
  const module = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as (
    exports: unknown,
    require: NodeRequire,
    module: { exports: unknown },
    filename: string,
    dirname: string,
  ) => void;
  wrapper.call(
    module.exports,
    module.exports,
    createRequire(bundle),
    module,
    bundle,
    dirname(bundle),
  );
  let saved = used;
  return {
    outcome,
    exports: module.exports,
    saveCache() {
      if (saved || file === null) return null;
      saved = true;
      try {
        writeCache(file, bundle, script.createCachedData());
        return null;
      } catch (e) {
        return e as Error;
      }
    },
  };
}
