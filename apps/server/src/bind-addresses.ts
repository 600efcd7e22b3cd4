/** One `bind` address, as Redis's listenToPort reads it. */
export interface BindAddress {
  /** As the log shows it: Redis's spelling, without the `-`. */
  readonly shown: string;
  /** What to listen on: `*` is every IPv4 address, `::*` every IPv6 one. */
  readonly host: string;
  /** `-` before it: a missing address (EADDRNOTAVAIL) skips it instead of failing the start. */
  readonly optional: boolean;
  /** A `:` in it: listened on as IPv6 only (IPV6_V6ONLY), so `* ::*` do not clash. */
  readonly ipv6: boolean;
}

export function bindAddresses(bind: readonly string[]): BindAddress[] {
  return bind.map((written) => {
    const optional = written.startsWith('-');
    const shown = optional ? written.slice(1) : written;
    const host = shown === '*' ? '0.0.0.0' : shown === '::*' ? '::' : shown;
    return { shown, host, optional, ipv6: shown.includes(':') };
  });
}

const LOOPBACK = /^(127\.|::1$|localhost$|::ffff:127\.)/i;

/** Whether clients can reach it from other machines (a wildcard or an interface address). */
export function isExposed(address: BindAddress): boolean {
  return !LOOPBACK.test(address.host);
}

/** `127.0.0.1:6379`, `[::1]:6379`. */
export function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
