import { resolve } from 'node:path';
import { RdbImportError } from '@strata/resp';
import { ArgumentError, parseCommandLine } from './args.js';
import type { ServerConfig } from './config.js';
import { daemonize, daemonReady, isDaemon } from './daemonize.js';
import { helpText } from './help.js';
import { ListenError } from './listeners.js';
import {
  argumentErrorText,
  FatalConfigError,
  type LoadedConfig,
  loadConfig,
} from './load-config.js';
import { logWriter } from './log-file.js';
import { Logger } from './logger.js';
import { ImportRefused, runRdbImport } from './rdb-import-run.js';
import { handleSignals } from './signals.js';
import { StrataServer } from './strata-server.js';
import { VERSION } from './version.js';

/** Runs strata-server; resolves with an exit code, or null while the server runs. */
async function main(argv: readonly string[]): Promise<number | null> {
  let invocation: ReturnType<typeof parseCommandLine>;
  try {
    invocation = parseCommandLine(argv);
  } catch (e) {
    if (!(e instanceof ArgumentError)) throw e;
    process.stderr.write(`${argumentErrorText(e)}\n`);
    return 1;
  }
  if (invocation.kind === 'help') {
    process.stdout.write(helpText());
    return 0;
  }
  if (invocation.kind === 'version') {
    process.stdout.write(`Strata server v=${VERSION} node=${process.version} bits=64\n`);
    return 0;
  }
  let loaded: LoadedConfig;
  try {
    loaded = await loadConfig(invocation);
  } catch (e) {
    if (!(e instanceof FatalConfigError)) throw e;
    process.stderr.write(`${e.message}\n`);
    return 1;
  }
  const importing = loaded.config.importRdb !== '';
  if (importing && loaded.config.daemonize) {
    process.stderr.write('strata-server: --import-rdb runs in the foreground (daemonize no)\n');
    return 1;
  }
  // The configuration is checked (errors on this terminal), then the copy
  // in the background reads it again and runs.
  if (loaded.config.daemonize && !isDaemon()) return daemonize(argv);
  const logger = new Logger({
    level: loaded.config.logLevel,
    write: logWriter(loaded.config.logfile),
  });
  if (importing) {
    const code = await importStep(loaded.config, logger);
    if (code !== 0 || !loaded.config.importServe) return code;
  }
  const server = new StrataServer(loaded, logger);
  // Signals during start-up shut down as well, once databases may be open.
  handleSignals(server, logger);
  try {
    await server.start();
  } catch (e) {
    // A port or address that cannot be listened on has its lines logged already.
    if (!(e instanceof ListenError)) {
      logger.warning(`Fatal error during start-up: ${(e as Error).message}`);
    }
    return 1;
  }
  if (isDaemon()) daemonReady();
  return null;
}

/** --import-rdb: the import, logged; 0 when it loaded the file, 1 when nothing was imported. */
async function importStep(config: ServerConfig, logger: Logger): Promise<number> {
  try {
    await runRdbImport(config, logger, process.stderr);
    return 0;
  } catch (e) {
    logger.warning(`Import failed: ${(e as Error).message}`);
    // A bad file or a refused directory stop the import before anything is visible.
    if (e instanceof RdbImportError || e instanceof ImportRefused) {
      logger.warning(`Nothing was imported: ${resolve(config.dir)} is as it was.`);
    }
    return 1;
  }
}

/**
 * The run: resolves once strata-server serves (cli.ts then writes the code
 * cache); a run that ends (an error, `--version`, an import) exits instead.
 */
export const serving: Promise<void> = main(process.argv.slice(2)).then(
  (code) => {
    if (code !== null) process.exit(code);
  },
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
