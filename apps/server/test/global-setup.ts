import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'tsup';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** strata-server built from the current sources, for tests that run it as a process. */
    strataServerCli: string;
  }
}

/**
 * Builds src/main.ts (the server; in dist/ cli.ts runs it with a code cache),
 * with the @strata/* packages bundled from their
 * sources (the `@strata/source` condition), into a temporary directory:
 * the process tests run what the sources say now, with or without a
 * `pnpm build` before, and never touch dist/.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = resolve(import.meta.dirname, '..');
  const outDir = await mkdtemp(join(tmpdir(), 'strata-server-cli-'));
  await build({
    entry: { cli: join(root, 'src/main.ts') },
    outDir,
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    sourcemap: true,
    config: false,
    tsconfig: join(root, 'tsconfig.json'),
    silent: true,
    noExternal: [/^@strata\//],
    // CommonJS dependencies bundled in (fengari) require Node's modules at run time.
    banner: {
      js: "import { createRequire as strataCreateRequire } from 'node:module'; const require = strataCreateRequire(import.meta.url);",
    },
    esbuildOptions(options) {
      options.conditions = ['@strata/source'];
    },
  });
  project.provide('strataServerCli', join(outDir, 'cli.js'));
  return async () => {
    await rm(outDir, { recursive: true, force: true });
  };
}
