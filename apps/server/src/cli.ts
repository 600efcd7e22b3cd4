import { ArgumentError, parseCommandLine } from './args.js';
import { helpText } from './help.js';
import {
  argumentErrorText,
  FatalConfigError,
  type LoadedConfig,
  loadConfig,
} from './load-config.js';
import { Logger } from './logger.js';
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
  const logger = new Logger({ level: loaded.config.logLevel });
  const server = new StrataServer(loaded, logger);
  // Signals during start-up shut down as well, once databases may be open.
  handleSignals(server, logger);
  try {
    await server.start();
  } catch (e) {
    logger.warning(`Fatal error during start-up: ${(e as Error).message}`);
    return 1;
  }
  return null;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== null) process.exit(code);
  },
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
