import type { Options } from 'tsup';

type Entry = Options['entry'];

/** A published library: ESM + .d.ts for each entry (default `src/index.ts`). */
export function libraryConfig(entry?: Entry): Options;
/**
 * A CLI app: one executable ESM entry with a shebang (default `src/cli.ts`);
 * `external`: packages resolved by Node at run time, not bundled.
 */
export function cliConfig(entry?: Entry, external?: readonly string[]): Options;
