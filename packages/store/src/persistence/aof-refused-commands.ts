import { type CommandDefinition, CommandError, commandDefinitions } from '@strata/resp';

/**
 * Commands refused while appendonly is yes (`aofOn`: an AOF is open), because each database's AOF
 * position belongs to its own checkpoints: a command that changes two
 * databases would be applied again, or lost, when their checkpoints fall
 * on either side of it in the file. SWAPDB always; MOVE always (it names
 * another database); COPY only with `DB n` naming another database (COPY in
 * the same database runs as usual).
 */
export function aofRefusedCommands(aofOn: () => boolean): CommandDefinition[] {
  return [
    refused('swapdb', aofOn),
    refused('move', aofOn),
    refused('copy', (db, argv) => aofOn() && copiesAcross(db, argv)),
  ];
}

function builtIn(name: string): CommandDefinition {
  const def = commandDefinitions().find((d) => d.name === name);
  if (def === undefined) throw new Error(`@strata/resp has no ${name}`);
  return def;
}

/** COPY src dst [DB n] [REPLACE]: true when n is given and is not the client's database. */
function copiesAcross(db: number, argv: readonly Buffer[]): boolean {
  for (let i = 3; i + 1 < argv.length; i++) {
    if (argv[i]!.toString('latin1').toLowerCase() === 'db') {
      return Number(argv[i + 1]!.toString('latin1')) !== db;
    }
  }
  return false;
}

function refused(
  name: string,
  refuses: (db: number, argv: readonly Buffer[]) => boolean,
): CommandDefinition {
  const def = builtIn(name);
  const handler = def.handler!;
  const message = `ERR ${name.toUpperCase()} ${name === 'copy' ? 'to another database ' : ''}is not supported while appendonly is yes`;
  return {
    ...def,
    handler: (c, argv) => {
      if (refuses(c.db, argv)) throw new CommandError('ERR_UNSUPPORTED', message);
      return handler(c, argv);
    },
  };
}
