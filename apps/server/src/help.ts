import { DEFAULT_CONFIG, listedSettings } from './config.js';
import { VERSION } from './version.js';

function row(left: string, right: string): string {
  return `  ${left.padEnd(32)} ${right}`;
}

/** strata-server --help: every setting with its default, from the settings table. */
export function helpText(): string {
  const options = listedSettings().map((s) =>
    row(`--${s.name} ${s.arg}`, `${s.help} [${s.show(DEFAULT_CONFIG)}]`),
  );
  return `strata-server ${VERSION} — a Redis-compatible server on the Strata hybrid log

Usage: strata-server [config-file] [options]
       strata-server --help | --version

Options, [default] (each is also a config file directive: \`port 7000\`):
${options.join('\n')}
${row('-h, --help', 'show this help')}
${row('-v, --version', 'show the version')}

Sizes take Redis's units, case-insensitive: 1k = 1000, 1kb = 1024, and
m, mb, g, gb likewise; a plain number is bytes. Values given on the command
line override the config file. Memory, index, page and segment sizes apply
to each open database (a database opens on first use). The page and segment
sizes of a --dir are fixed once it holds data.

Config file (redis.conf, Redis 7's syntax): one directive per line, \`#\`
comments, values in "double" or 'single' quotes when they hold spaces,
\`include <file>\`. Every Redis 7 directive is accepted, in the file and as
--<directive> <values...> after it (strata-server redis.conf --port 7000);
the ones strata-server does not use are named in one warning at start-up.

Examples:
  strata-server
  strata-server --port 7000 --dir /var/lib/strata --memory 256mb
  strata-server ./strata.conf --log-level verbose
  strata-server /etc/redis/redis.conf --port 7000 --dir /var/lib/strata

SIGINT or SIGTERM checkpoints every open database and exits; a second
signal exits at once. A restart on the same --dir recovers every key.
`;
}
