import { chmodSync, unlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { ListenError } from './listeners.js';
import type { Logger } from './logger.js';
import { strerror } from './system-error.js';

/** sockaddr_un's sun_path: 108 bytes with its terminating zero. */
const SUN_PATH = 108;

/**
 * Redis's `unixsocket`: the file removed first (whatever was there), then
 * a listener on it with `backlog`, its mode set to `perm` when not 0. A
 * failure is Redis's `Failed opening Unix socket: <why>`, and the start
 * stops.
 */
export async function listenUnix(
  path: string,
  perm: number,
  backlog: number,
  accept: (socket: Socket) => void,
  logger: Logger,
): Promise<Server> {
  const failed = (why: string) => {
    const message = `Failed opening Unix socket: ${why}`;
    logger.warning(message);
    return new ListenError(message);
  };
  const length = Buffer.byteLength(path);
  if (length > SUN_PATH - 1) {
    throw failed(`unix socket path too long (${length}), must be under ${SUN_PATH}`);
  }
  try {
    unlinkSync(path);
  } catch {
    // Redis: "don't care if this fails".
  }
  const server = createServer(accept);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ path, backlog }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    throw failed(`${(e as NodeJS.ErrnoException).syscall ?? 'bind'}: ${strerror(e)}`);
  }
  if (perm !== 0) chmodSync(path, perm);
  return server;
}

/** Redis's shutdown: the socket file goes (a failure is logged). */
export function removeUnixSocket(path: string, logger: Logger): void {
  logger.notice('Removing the unix socket file.');
  try {
    unlinkSync(path);
  } catch (e) {
    logger.warning(`Error removing the unix socket file: ${strerror(e)}`);
  }
}
