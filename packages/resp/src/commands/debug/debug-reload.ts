import { eqi } from '../../args.js';
import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';

/** RELOAD's options, as debug.c reads them. */
interface ReloadOptions {
  readonly flush: boolean;
  readonly save: boolean;
}

function parseReload(argv: readonly Buffer[]): ReloadOptions {
  let flush = true;
  let save = true;
  for (let j = 2; j < argv.length; j++) {
    const opt = argv[j]!;
    // MERGE lets the loaded keys replace existing ones: nothing is loaded over kept data here.
    if (eqi(opt, 'merge')) continue;
    if (eqi(opt, 'noflush')) flush = false;
    else if (eqi(opt, 'nosave')) save = false;
    else {
      throw new CommandError(
        'ERR_SYNTAX',
        'ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.',
      );
    }
  }
  return { flush, save };
}

/** Redis's reply when rdbSave fails: shared.err, a bare `-ERR`. */
const saveFailed = () => new CommandError('ERR_RELOAD', 'ERR');
const loadFailed = () =>
  new CommandError('ERR_RELOAD', 'ERR Error trying to load the RDB dump, check server logs.');

/**
 * DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: "save" is a checkpoint of every
 * open database (SAVE), "reload" drops them from memory and opens them
 * again from disk as a restart would. NOSAVE reopens from what is on disk
 * (the last checkpoint and the log written since); NOFLUSH keeps the data
 * in memory and loads nothing over it. Without databases that can save
 * (or reopen), the replies are Redis's when its RDB cannot be written (or read).
 * Every other client waits meanwhile, as Redis blocks.
 */
export function debugReload(c: Client, argv: Buffer[]): CommandResult {
  const opts = parseReload(argv);
  const s = c.server;
  return s.runExclusive(c, async () => {
    if (opts.save) {
      if (!s.keyspace.canSave) throw saveFailed();
      try {
        await s.keyspace.saveAll();
      } catch (e) {
        s.log('warning', `DEBUG RELOAD could not save: ${(e as Error).message}`);
        throw saveFailed();
      }
      s.lastSave = Math.floor(Date.now() / 1000);
    }
    if (opts.flush) {
      if (!s.keyspace.canReload) throw loadFailed();
      try {
        await s.keyspace.reload();
      } catch (e) {
        s.log('warning', `DEBUG RELOAD could not reopen the databases: ${(e as Error).message}`);
        throw loadFailed();
      }
    }
    s.log('warning', 'DB reloaded by DEBUG RELOAD');
    c.reply.simple('OK');
  });
}
