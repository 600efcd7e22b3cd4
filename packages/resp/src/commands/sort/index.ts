import type { CommandFamily } from '../family.js';
import { sortCommand, sortRoCommand } from './sort.js';

/**
 * SORT and SORT_RO as Redis 7.0 has them (sort.c): lists, sets and sorted
 * sets by their elements or by the keys BY names, GET patterns, LIMIT,
 * ALPHA, STORE into a list. Keys on the disk are all loaded before the
 * sort runs, in one step with every other client held (sort-lookups.ts).
 */
export const sortFamily: CommandFamily = {
  name: 'sort',
  commands: [sortCommand, sortRoCommand],
};
