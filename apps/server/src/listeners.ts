import { createServer, type Server, type Socket } from 'node:net';
import { StrataError } from '@strata/io';
import type { BindAddress } from './bind-addresses.js';
import type { ServerErrorCode } from './errors.js';
import type { Logger } from './logger.js';
import { probePort } from './port-probe.js';
import { strerror } from './system-error.js';

/** The server cannot listen where it was told; the reason is logged already. */
export class ListenError extends StrataError<ServerErrorCode> {
  override name = 'ListenError';
  constructor(message: string) {
    super('ERR_LISTEN', message);
  }
}

/** Errors that skip an address, as Redis's listenToPort (the family is missing; `-`: the address is). */
function skips(address: BindAddress, code: string | undefined): boolean {
  if (code === 'EADDRNOTAVAIL') return address.optional;
  return code === 'EAFNOSUPPORT' || code === 'EPROTONOSUPPORT' || code === 'ENOPROTOOPT';
}

/** anet's error text: `bind: Address already in use`, or the resolver's for a name that is no host. */
function netError(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err.syscall === 'getaddrinfo' || err.code === 'ENOTFOUND') return strerror(e);
  return `bind: ${strerror(e)}`;
}

function couldNotListen(logger: Logger, address: BindAddress, port: number, e: unknown): void {
  logger.warning(
    `Warning: Could not create server TCP listening socket ${address.shown}:${port}: ${netError(e)}`,
  );
}

/** Redis's two lines for an address it cannot listen on; the error to stop the start with. */
export function listenFailed(
  logger: Logger,
  address: BindAddress,
  port: number,
  e: unknown,
): ListenError {
  couldNotListen(logger, address, port, e);
  return aborting(logger, port);
}

function aborting(logger: Logger, port: number): ListenError {
  const message = `Failed listening on port ${port} (tcp), aborting.`;
  logger.warning(message);
  return new ListenError(message);
}

/** The addresses the server listens on (the ones that could be bound), in bind's order. */
export type BoundAddresses = readonly BindAddress[];

/**
 * Tries every address before anything is written to the data directory:
 * the ones the server will listen on, in order. An address that cannot be
 * bound fails the start (ListenError), unless Redis would skip it; none at
 * all fails it too.
 */
export async function probeAddresses(
  addresses: readonly BindAddress[],
  port: number,
  logger: Logger,
): Promise<BoundAddresses> {
  const usable: BindAddress[] = [];
  for (const address of addresses) {
    try {
      await probePort(port, address.host, address.ipv6);
      usable.push(address);
    } catch (e) {
      couldNotListen(logger, address, port, e);
      if (!skips(address, (e as NodeJS.ErrnoException).code)) throw aborting(logger, port);
    }
  }
  if (usable.length === 0) {
    const message = 'Configured to not listen anywhere, exiting.';
    logger.warning(message);
    throw new ListenError(message);
  }
  return usable;
}

/**
 * The address RespServer.listen takes: one that is not IPv6's wildcard
 * (Node listens on `::` for IPv4 too, which would take `*`'s port) when
 * there is one. The others get listeners of their own.
 */
export function primaryAddress(addresses: BoundAddresses): BindAddress {
  return addresses.find((a) => a.host !== '::') ?? addresses[0]!;
}

/** Listeners on the addresses after the first, handing their connections to `accept`. */
export class ExtraListeners {
  private readonly servers: Server[] = [];

  constructor(private readonly accept: (socket: Socket) => void) {}

  /** Listens on each; on a failure, logs Redis's lines, closes them all and throws ListenError. */
  async listen(
    addresses: readonly BindAddress[],
    port: number,
    backlog: number,
    logger: Logger,
  ): Promise<void> {
    for (const address of addresses) {
      const server = createServer({ noDelay: true }, this.accept);
      try {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen({ port, host: address.host, ipv6Only: address.ipv6, backlog }, () => {
            server.off('error', reject);
            resolve();
          });
        });
        this.servers.push(server);
      } catch (e) {
        couldNotListen(logger, address, port, e);
        if (skips(address, (e as NodeJS.ErrnoException).code)) continue;
        this.close();
        throw aborting(logger, port);
      }
    }
  }

  /** Where they listen, as `address()` says. */
  hosts(): string[] {
    return this.servers.map((s) => {
      const a = s.address();
      return a !== null && typeof a === 'object' ? a.address : '';
    });
  }

  /** Stops accepting; the connections they took are RespServer's to close. */
  close(): void {
    for (const s of this.servers.splice(0)) s.close();
  }
}
