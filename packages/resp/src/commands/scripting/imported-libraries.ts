import { dumpLibraries } from './function-dump.js';
import { type FunctionStore, libraryName, savedCodes } from './function-libraries.js';

/**
 * Function libraries moved in from another server (an RDB file's FUNCTION2
 * records) go into the function store the server loads at start, not into
 * a running engine: the import runs before any server exists. There each
 * is compiled by the engine as a FUNCTION LOAD would be (restoreSaved), and
 * a library that does not compile stops the start, named. Here only the
 * metadata line is checked, so a file whose libraries have no name stops
 * the import instead.
 */

/**
 * Adds `codes` to what `store` holds: a library of the same name is
 * replaced (as a key of the file replaces a key in a merged import), the
 * others kept in their order. Resolves once the store has them durably.
 */
export async function addImportedLibraries(
  store: FunctionStore,
  codes: readonly Buffer[],
): Promise<void> {
  const names = new Set(codes.map(libraryName));
  const saved = await store.load();
  const kept: Buffer[] = [];
  if (saved !== null) {
    for (const code of savedCodes(saved)) if (!names.has(libraryName(code))) kept.push(code);
  }
  await store.save(dumpLibraries([...kept, ...codes]));
}
