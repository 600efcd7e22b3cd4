import type { CommandHandler } from '../../server/command-table.js';

/** The handler of a container's HELP subcommand (CLIENT HELP, COMMAND HELP...): its lines as simple strings. */
export function helpReply(lines: readonly string[]): CommandHandler {
  return (c) => {
    c.reply.array(lines.length);
    for (const line of lines) c.reply.simple(line);
    return undefined;
  };
}
