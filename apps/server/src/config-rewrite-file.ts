import { open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ConfigRewriteHook } from '@strata/resp';
import { strerror } from './system-error.js';

/**
 * CONFIG REWRITE on the config file strata-server started from, as Redis 7
 * writes it: the whole new text to a temporary file beside it, fsynced,
 * renamed over the old one, the directory fsynced; a crash leaves the old
 * file or the new one, never half of one. The file keeps its mode.
 */
export function fileConfigRewrite(path: string): ConfigRewriteHook {
  return async (rewrite) => {
    try {
      const text = await readFile(path, 'utf8');
      const { mode } = await stat(path);
      const tmp = `${path}.tmp-${process.pid}`;
      const fh = await open(tmp, 'w', mode & 0o7777);
      try {
        await fh.writeFile(rewrite(text));
        await fh.sync();
      } catch (e) {
        await fh.close();
        await unlink(tmp).catch(() => {});
        throw e;
      }
      await fh.close();
      await rename(tmp, path);
      const dir = await open(dirname(path), 'r');
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
    } catch (e) {
      throw new Error(strerror(e));
    }
  };
}
