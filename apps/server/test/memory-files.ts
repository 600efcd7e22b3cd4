import { dirname, resolve } from 'node:path';
import type { ConfigFiles } from '../src/config-file.js';

/**
 * Config files in memory, by path (relative ones resolved against the
 * working directory, as the real file system does).
 */
export function memoryFiles(files: Record<string, string>): ConfigFiles {
  const byPath = new Map(Object.entries(files).map(([p, text]) => [resolve(p), text]));
  const missing = (path: string) =>
    Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT', errno: -2 });
  return {
    read: async (path) => {
      const text = byPath.get(resolve(path));
      if (text === undefined) throw missing(path);
      return text;
    },
    readdir: async (path) => {
      const dir = resolve(path);
      const names = new Set<string>();
      for (const p of byPath.keys()) {
        if (dirname(p) === dir) names.add(p.slice(dir.length + 1));
        else if (p.startsWith(`${dir}/`)) names.add(p.slice(dir.length + 1).split('/')[0]!);
      }
      if (names.size === 0) throw missing(path);
      return [...names];
    },
    exists: async (path) => {
      const p = resolve(path);
      return byPath.has(p) || [...byPath.keys()].some((k) => k.startsWith(`${p}/`));
    },
  };
}
