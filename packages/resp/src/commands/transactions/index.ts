import type { CommandFamily } from '../family.js';
import { transactionCommands } from './transactions.js';

/** MULTI, EXEC, DISCARD, WATCH, UNWATCH. */
export const transactionsFamily: CommandFamily = {
  name: 'transactions',
  commands: transactionCommands,
};
