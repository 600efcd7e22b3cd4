import { createServer } from 'node:net';

/**
 * Binds `host:port` and lets it go again: whether the server can listen
 * there, asked before it creates or locks anything in its directory (a port
 * in use must not leave a fresh `--dir` behind). Rejects with the listen
 * error (EADDRINUSE, EADDRNOTAVAIL, EACCES); with port 0 (any free port)
 * only the address is tried. `ipv6Only`: as Redis's IPv6 sockets (IPV6_V6ONLY), so `::` and
 * `0.0.0.0` can be bound side by side.
 */
export function probePort(port: number, host: string, ipv6Only = false): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true, ipv6Only }, () => {
      probe.close(() => resolve());
    });
  });
}
