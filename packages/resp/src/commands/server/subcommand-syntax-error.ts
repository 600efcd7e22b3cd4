import { CommandError } from '../../errors.js';

/**
 * Redis's addReplySubcommandSyntaxError: a subcommand given arguments its
 * handler does not take (SLOWLOG GET 1 2), named as typed, its container upper-cased.
 */
export function subcommandSyntaxError(argv: readonly Buffer[]): CommandError {
  const container = argv[0]!.toString('latin1').toUpperCase();
  return new CommandError(
    'ERR_UNKNOWN_SUBCOMMAND',
    `ERR unknown subcommand or wrong number of arguments for '${argv[1]!.toString('latin1', 0, 128)}'. Try ${container} HELP.`,
    true,
  );
}
