import type { Options } from 'tsup';

type Entry = Options['entry'];

/** A published library: ESM + .d.ts for each entry (default `src/index.ts`). */
export function libraryConfig(entry?: Entry): Options;
/** A CLI app: one executable ESM entry with a shebang (default `src/cli.ts`). */
export function cliConfig(entry?: Entry): Options;
