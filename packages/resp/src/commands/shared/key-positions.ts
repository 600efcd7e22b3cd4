import type { CommandDefinition } from '../../server/command-table.js';

/**
 * Key positions of a command, spread into its definition (`...KEY1`):
 * Redis's legacy range, the first key (0: none), the last (-1: the last
 * argument, -2: the one before), the step.
 */
export type KeyPositions = Pick<CommandDefinition, 'firstKey' | 'lastKey' | 'step'>;

/** No fixed key: none at all, or keys that follow a count (ZUNION, LMPOP...). */
export const NO_KEYS = { firstKey: 0, lastKey: 0, step: 0 } as const satisfies KeyPositions;

/** One key, the first argument. */
export const KEY1 = { firstKey: 1, lastKey: 1, step: 1 } as const satisfies KeyPositions;

/** A source and a destination (LMOVE, RENAME, ZRANGESTORE...). */
export const SRC_DST = { firstKey: 1, lastKey: 2, step: 1 } as const satisfies KeyPositions;

/** Every argument is a key (DEL, SINTER...), or every one after the destination (SINTERSTORE...). */
export const ALL_KEYS = { firstKey: 1, lastKey: -1, step: 1 } as const satisfies KeyPositions;
