// The one tsup setup every Strata package and app builds with: ESM for
// Node 20 with source maps. Libraries also emit .d.ts; apps are CLIs.
// tsup itself comes from the root devDependencies (one copy for the repo).
import { defineConfig } from 'tsup';

const common = { format: ['esm'], sourcemap: true, clean: true, target: 'node20' };

/** A published library: ESM + .d.ts for each entry. */
export function libraryConfig(entry = ['src/index.ts']) {
  return defineConfig({ ...common, entry, dts: true });
}

/**
 * A CLI app: one executable ESM entry with a shebang. `external`: packages
 * left to Node's resolution at run time (tsup bundles devDependencies;
 * native addons and CommonJS that requires Node's builtins must not be).
 */
export function cliConfig(entry = ['src/cli.ts'], external = []) {
  return defineConfig({ ...common, entry, external, banner: { js: '#!/usr/bin/env node' } });
}
