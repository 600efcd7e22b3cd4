import type { Redis } from 'ioredis';
import { DEFAULT_CONFIG, type ServerConfig } from '../src/config.js';
import { Logger } from '../src/logger.js';
import { StrataServer } from '../src/strata-server.js';

/** A StrataServer in this process on `dir` (small pages and memory), started, and its port. */
export async function startInProcess(
  dir: string,
  config: Partial<ServerConfig>,
): Promise<{ server: StrataServer; port: number }> {
  const server = new StrataServer(
    {
      config: {
        ...DEFAULT_CONFIG,
        port: 0,
        dir,
        memory: 64 * 1024,
        pageSize: 16 * 1024,
        ...config,
      },
      notes: [],
      configFile: null,
      parameters: [],
      unused: [],
      users: [],
    },
    new Logger({ level: 'warning', write: () => undefined }),
    () => undefined,
  );
  const { port } = await server.start();
  return { server, port };
}

/** INFO's `field:value` lines of one section, as a map. */
export async function infoFields(r: Redis, section: string): Promise<Map<string, string>> {
  const text = await r.info(section);
  return new Map(
    text
      .split('\r\n')
      .filter((l) => l.includes(':'))
      .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)] as [string, string]),
  );
}
