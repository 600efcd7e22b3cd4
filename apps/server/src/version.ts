import pkg from '../package.json' with { type: 'json' };

/** strata-server's version (apps/server/package.json), inlined at build time. */
export const VERSION: string = pkg.version;
