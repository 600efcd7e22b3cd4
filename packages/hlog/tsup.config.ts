import { libraryConfig } from '@strata/tsup-preset';

// The parallel index rebuild's worker is an entry of its own: it is loaded
// from dist/rebuild-worker.js beside the module that starts it.
export default libraryConfig(['src/index.ts', 'src/rebuild-worker.ts']);
