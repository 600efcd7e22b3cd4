import type { AofFileSystem } from '@strata/aof';
import { DEFAULT_CONFIG, type ServerConfig } from '../src/config.js';
import { Logger } from '../src/logger.js';
import { StrataServer } from '../src/strata-server.js';

/** Besides the config: where the server logs (nowhere by default), the AOF's file system. */
export interface InProcessOptions {
  readonly logger?: Logger;
  readonly aofFileSystem?: AofFileSystem;
}

/** A StrataServer in this process on `dir` (small pages and memory), started, and its port. */
export async function startInProcess(
  dir: string,
  config: Partial<ServerConfig>,
  options: InProcessOptions = {},
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
    options.logger ?? new Logger({ level: 'warning', write: () => undefined }),
    () => undefined,
    options.aofFileSystem,
  );
  const { port } = await server.start();
  return { server, port };
}
