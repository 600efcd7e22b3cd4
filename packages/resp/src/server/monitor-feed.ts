import type { Client } from './client.js';
import { REDACTED } from './slowlog.js';

/**
 * A MONITOR line as Redis's replicationFeedMonitors writes it (without the
 * `+` and CRLF the simple string adds): `1339518083.107412 [0 127.0.0.1:60866] "keys" "*"`,
 * `[0 lua]` for a script's commands, each argument as sdscatrepr quotes it.
 * `at` is the wall clock in ms (with its fraction).
 */
export function monitorLine(
  at: number,
  db: number,
  source: string,
  argv: readonly Buffer[],
  redacted: readonly number[] | null,
): Buffer {
  const us = Math.floor(at * 1000);
  const seconds = Math.floor(us / 1_000_000);
  let line = `${seconds}.${String(us - seconds * 1_000_000).padStart(6, '0')} [${db} ${source}]`;
  for (let j = 0; j < argv.length; j++) {
    line += ` ${repr(redacted?.includes(j) ? REDACTED : argv[j]!)}`;
  }
  return Buffer.from(line, 'latin1');
}

/** Redis's sdscatrepr: quoted, `\\ \" \n \r \t \a \b` escaped, other unprintable bytes as `\xhh`. */
export function repr(bytes: Uint8Array): string {
  let s = '"';
  for (const b of bytes) {
    switch (b) {
      case 0x5c:
        s += '\\\\';
        break;
      case 0x22:
        s += '\\"';
        break;
      case 0x0a:
        s += '\\n';
        break;
      case 0x0d:
        s += '\\r';
        break;
      case 0x09:
        s += '\\t';
        break;
      case 0x07:
        s += '\\a';
        break;
      case 0x08:
        s += '\\b';
        break;
      default:
        s +=
          b >= 0x20 && b <= 0x7e ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`;
    }
  }
  return `${s}"`;
}

/**
 * Writes one line to every monitoring client, as a push (never inside one
 * of its replies); not to one whose replies are off (CLIENT REPLY), as Redis.
 */
export function feedMonitors(monitors: readonly Client[], line: Buffer): void {
  for (const m of monitors) {
    if (m.closed || m.repliesMuted) continue;
    m.pushWriter().simple(line);
    m.pushed();
  }
}
