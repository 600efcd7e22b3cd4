import { parseArgs } from 'node:util';

const HELP = `strata-server — a Redis-compatible server on the Strata hybrid log

Usage: strata-server [options] [config-file]

Options:
  --port <n>               TCP port (default 6379)
  --bind <addr>            address to listen on (default 127.0.0.1)
  --dir <path>             data directory (default ./data)
  --memory <size>          log memory budget, e.g. 64mb, 1gb
  --help                   show this help
`;

const { values } = parseArgs({
  options: { help: { type: 'boolean', short: 'h' } },
  strict: false,
  allowPositionals: true,
});

process.stdout.write(HELP);
if (!values.help) {
  process.stdout.write(
    '\nThe server itself is not built yet: @strata/resp lands with its own issue.\n',
  );
}
