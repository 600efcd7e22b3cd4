import type { Client } from '../client.js';
import type {
  AclCategory,
  CommandDefinition,
  CommandFlagName,
  CommandResult,
} from '../command-table.js';

/**
 * The command-table entries of the list and sorted set commands (the
 * blocking and algebra ones included): one positional form, so a table
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

/** The COMMAND group and ACL category of a family of commands. */
export interface CommandFamily {
  readonly acl: AclCategory;
  readonly group: string;
  /** The complexity COMMAND DOCS shows when an entry names none. */
  readonly complexity: string;
  /** Fields every entry of the family shares (the blocking pops are `wholeLog`). */
  readonly extra?: Partial<CommandDefinition>;
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
) => CommandDefinition;

/** The entry maker of `family`. */
export function commandMaker(family: CommandFamily): CommandMaker {
  return (name, arity, flags, keys, since, summary, handler, complexity = family.complexity) => ({
    name,
    arity,
    flags,
    firstKey: keys[0],
    lastKey: keys[1],
    step: keys[2],
    acl: [family.acl],
    group: family.group,
    since,
    summary,
    complexity,
    handler,
    ...family.extra,
  });
}
