import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'tsup';

/**
 * Vitest global setup: tests run from TypeScript sources, where the
 * parallel rebuild's worker (src/rebuild-worker.ts) has no script a worker
 * thread can load. It is bundled here, from the sources under test, and
 * named by STRATA_HLOG_REBUILD_WORKER (parallel-rebuild.ts looks there).
 */
export default async function setup(): Promise<() => void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'strata-rebuild-worker-'));
  await build({
    entry: { 'rebuild-worker': path.join(import.meta.dirname, '../src/rebuild-worker.ts') },
    outDir: dir,
    format: ['esm'],
    target: 'node20',
    dts: false,
    splitting: false,
    sourcemap: false,
    clean: false,
    silent: true,
    config: false,
    // One self-contained file, from the sources (as the tests run them).
    noExternal: [/.*/],
    esbuildOptions(o) {
      o.conditions = ['@strata/source'];
    },
  });
  process.env.STRATA_HLOG_REBUILD_WORKER = path.join(dir, 'rebuild-worker.js');
  return () => rmSync(dir, { recursive: true, force: true });
}
