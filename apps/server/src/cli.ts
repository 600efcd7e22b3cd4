import { fileURLToPath } from 'node:url';
import { codeCacheDir, runWithCodeCache } from './code-cache.js';

// strata-server's bin: the server itself is one CommonJS bundle
// (main.ts and the @strata packages, dist/strata-server.cjs), run with V8's
// code cache so that a start does not compile it again (code-cache.ts).
const run = runWithCodeCache(
  fileURLToPath(new URL('./strata-server.cjs', import.meta.url)),
  codeCacheDir(),
);
// Written once the server serves, so the functions its start compiled are in it.
void (run.exports as { serving: Promise<void> }).serving.then(() => run.saveCache());
