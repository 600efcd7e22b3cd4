import { createServer } from 'node:net';

/**
 * Binds `host:port` and lets it go again: whether the server can listen
 * there, asked before it creates or locks anything in its directory (a port
 * in use must not leave a fresh `--dir` behind). Rejects with the listen
 * error (EADDRINUSE, EADDRNOTAVAIL, EACCES). Port 0 (any free port) always
 * can.
 */
export function probePort(port: number, host: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true }, () => {
      probe.close(() => resolve());
    });
  });
}
