import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { cliConfig } from '@strata/tsup-preset';
import { defineConfig, type Options } from 'tsup';

// Three outputs, each cleaning only its own files (the builds run together):
// - cli.js, the bin: a small loader that runs the bundle with V8's code cache;
// - strata-server.cjs: the server and the @strata packages in one CommonJS
//   file (code caches are for scripts; Node 20 has none for ES modules).
//   `import.meta.url` becomes this file's URL (tsup's shims): resp requires
//   fengari from here, and hlog starts its rebuild worker from beside it;
// - rebuild-worker.js: hlog's parallel-rebuild worker, for that bundle.
const common: Options = { sourcemap: true, target: 'node20', noExternal: [/^@strata\//] };

export default defineConfig([
  { ...cliConfig(['src/cli.ts']), clean: ['cli.js', 'cli.js.map'] },
  {
    ...common,
    entry: { 'strata-server': 'src/main.ts' },
    format: ['cjs'],
    outExtension: () => ({ js: '.cjs' }),
    shims: true,
    external: ['fengari'],
    clean: ['strata-server.cjs', 'strata-server.cjs.map'],
  },
  {
    ...common,
    entry: {
      'rebuild-worker': join(
        dirname(createRequire(import.meta.url).resolve('@strata/hlog/package.json')),
        'dist/rebuild-worker.js',
      ),
    },
    format: ['esm'],
    clean: ['rebuild-worker.js', 'rebuild-worker.js.map'],
  },
]);
