import { open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { FunctionStore } from './function-libraries.js';

/**
 * The function libraries in one file (FUNCTION DUMP's payload, which carries
 * its own checksum), replaced whole on each change: written to a temporary
 * file, fsynced, renamed over the old one, and the directory fsynced, so a
 * crash leaves the old libraries or the new ones, never a mix.
 */
export function fileFunctionStore(path: string): FunctionStore {
  return {
    async load() {
      try {
        return await readFile(path);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw e;
      }
    },
    async save(payload) {
      const tmp = `${path}.tmp`;
      const f = await open(tmp, 'w');
      try {
        await f.writeFile(payload);
        await f.sync();
      } finally {
        await f.close();
      }
      await rename(tmp, path);
      const d = await open(dirname(path), 'r');
      try {
        await d.sync();
      } finally {
        await d.close();
      }
    },
  };
}
