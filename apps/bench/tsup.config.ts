import { cliConfig } from '@strata/tsup-preset';

// The embedded scenario's comparisons (devDependencies, native addons) load
// from node_modules when that scenario runs.
export default cliConfig(['src/cli.ts'], ['lmdb', 'classic-level']);
