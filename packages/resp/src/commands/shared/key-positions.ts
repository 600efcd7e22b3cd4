import type { Client } from '../../server/client.js';
import type {
  AclCategory,
  CommandDefinition,
  CommandFlagName,
  CommandResult,
} from '../../server/command-table.js';

/**
 * The command-table entries of the collection commands (hashes, sets,
 * sorted sets, lists, the blocking pops): one positional form, so a table
 * reads as a list of commands rather than of object literals.
 */

/** Redis's key positions: the first key, the last (-1: the last argument, -2: the one before), the step. */
export type KeySpec = readonly [first: number, last: number, step: number];

/** One key, the first argument. */
export const KEY1: KeySpec = [1, 1, 1];

/** A source and a destination (LMOVE, ZRANGESTORE...). */
export const SRC_DST: KeySpec = [1, 2, 1];

/** No fixed key: the keys follow a count (ZUNION, LMPOP...). */
export const NO_KEYS: KeySpec = [0, 0, 0];

/** Every argument is a key (SINTER...), or every one after the destination (SINTERSTORE...). */
export const ALL_KEYS: KeySpec = [1, -1, 1];

/** The COMMAND group and ACL category of a family of commands. */
export interface CommandFamily {
  readonly acl: AclCategory;
  readonly group: string;
  /** The complexity COMMAND DOCS shows when an entry names none. */
  readonly complexity: string;
  /** Fields every entry of the family shares (the blocking pops are `wholeLog`). */
  readonly extra?: Partial<CommandDefinition>;
  /** COMMAND INFO's key-spec flags from the command's flags, unless an entry gives its own. */
  readonly keyFlags?: (flags: readonly CommandFlagName[]) => readonly string[];
}

export type CommandMaker = (
  name: string,
  arity: number,
  flags: readonly CommandFlagName[],
  keys: KeySpec,
  since: string,
  summary: string,
  handler: (c: Client, argv: Buffer[]) => CommandResult,
  complexity?: string,
  /** This entry's own fields (key-spec flags, tips...), over the family's. */
  extra?: Partial<CommandDefinition>,
) => CommandDefinition;

/** The entry maker of `family`. */
export function commandMaker(family: CommandFamily): CommandMaker {
  return (
    name,
    arity,
    flags,
    keys,
    since,
    summary,
    handler,
    complexity = family.complexity,
    extra = {},
  ) => ({
    name,
    arity,
    flags,
    firstKey: keys[0],
    lastKey: keys[1],
    step: keys[2],
    acl: [family.acl],
    group: family.group,
    ...(family.keyFlags === undefined ? {} : { keyFlags: family.keyFlags(flags) }),
    since,
    summary,
    complexity,
    handler,
    ...family.extra,
    ...extra,
  });
}
