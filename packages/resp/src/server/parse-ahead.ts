import type { CommandTable } from './command-table.js';

/**
 * Tells a command that may be parsed ahead (its definition's `parseAhead`:
 * GET with 2 arguments, SET with 3) from its raw arguments, before any
 * lookup: the connection asks this of every command of a pipelined run.
 */
export class ParseAheadMatcher {
  private constructor(
    /** Lower-case names, as bytes. */
    private readonly names: readonly Uint8Array[],
    private readonly argcs: readonly number[],
  ) {}

  /** The matcher of the table's flagged commands, or null when there is none. */
  static from(table: CommandTable): ParseAheadMatcher | null {
    const names: Uint8Array[] = [];
    const argcs: number[] = [];
    for (const spec of table) {
      const argc = spec.definition.parseAhead;
      if (argc === undefined) continue;
      // The case fold below is exact for letters only; the prefetch takes argv[1] as the key.
      if (!/^[a-z]+$/.test(spec.name) || spec.firstKey !== 1 || spec.lastKey !== 1) {
        throw new TypeError(
          `command ${spec.name}: parseAhead needs a letters-only name and one key, the first argument`,
        );
      }
      names.push(Buffer.from(spec.name, 'latin1'));
      argcs.push(argc);
    }
    return names.length === 0 ? null : new ParseAheadMatcher(names, argcs);
  }

  matches(argv: readonly Buffer[]): boolean {
    const n = argv.length;
    const name = argv[0]!;
    for (let i = 0; i < this.argcs.length; i++) {
      if (this.argcs[i] !== n) continue;
      const want = this.names[i]!;
      if (want.length !== name.length) continue;
      let j = 0;
      while (j < want.length && (name[j]! | 0x20) === want[j]) j++;
      if (j === want.length) return true;
    }
    return false;
  }
}
