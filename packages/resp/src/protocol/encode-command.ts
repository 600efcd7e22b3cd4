/**
 * A command as a client sends it: a RESP multibulk of bulk strings
 * (`*N\r\n$len\r\narg\r\n...`). For tests and load generators; the server
 * never writes requests.
 */
export function encodeCommand(argv: ReadonlyArray<string | Uint8Array>): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${argv.length}\r\n`)];
  for (const arg of argv) {
    const bytes = typeof arg === 'string' ? Buffer.from(arg) : Buffer.from(arg);
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, Buffer.from('\r\n'));
  }
  return Buffer.concat(parts);
}
