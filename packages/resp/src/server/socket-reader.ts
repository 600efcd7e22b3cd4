import type { Socket } from 'node:net';

/**
 * Hands every chunk read from `socket` to `onChunk`, as its own Buffer.
 *
 * A server socket's reads normally go through the stream machinery: a new
 * ArrayBuffer per read (malloc, realloc, a backing store to sweep), then
 * `push`, the readable buffer and a 'data' event. Node can instead read
 * into a buffer of the caller's (the `onread` option of `net.Socket`), but
 * it offers that for sockets it connects, not for those a server accepts.
 * The same hook exists on every socket: this reader installs it on an
 * accepted one, reads into one buffer shared by all connections and copies
 * each read out (a slice of Buffer's pool for small reads). It saves ~2 µs
 * of CPU per read, a sixth of a one-command round trip's whole cost
 * (`strata-bench resp-throughput` shows it at pipeline depth 1). Where the
 * hook is not there (another Node), it falls back to 'data' events.
 *
 * `pause()`/`resume()` still stop and start reading: Node's Socket does so
 * for a socket reading into its own buffer.
 */
export function readChunks(socket: Socket, onChunk: (chunk: Buffer) => void): 'hook' | 'data' {
  const installed = readIntoShared(socket, (nread: number) => {
    const chunk = Buffer.allocUnsafe(nread);
    // A request or two (most reads) copy faster by hand than through copy()'s view.
    if (nread <= SMALL_READ) for (let i = 0; i < nread; i++) chunk[i] = SHARED[i]!;
    else SHARED.copy(chunk, 0, 0, nread);
    onChunk(chunk);
    // Anything but `false`: false would stop reading.
    return undefined;
  });
  if (!installed) {
    socket.on('data', onChunk);
    return 'data';
  }
  // No 'data' listener: flowing mode lets the end of input reach 'end' and 'close'.
  socket.resume();
  return 'hook';
}

const SMALL_READ = 128;

/** One read at a time (reads and their callbacks run in turn), so one buffer serves all. */
const SHARED = Buffer.allocUnsafeSlow(64 * 1024);

interface HandleWithUserBuffer {
  useUserBuffer(buffer: Uint8Array): void;
}

/** net.Socket's user-buffer slots, found on the first socket (every socket has the same). */
let slotKeys: { buffer: symbol; callback: symbol } | null | undefined;

/**
 * Makes the socket read into SHARED and call `onRead` with each read's
 * length, through its own user-buffer slots (net.Socket's `kBuffer` and
 * `kBufferCb`, set to null by its constructor) and its handle's
 * `useUserBuffer`. False, and nothing changed, when any is missing or
 * already in use, or `STRATA_SOCKET_READS=data` asks for the stream path
 * (socket-read-modes.test.ts runs the server through both).
 */
function readIntoShared(socket: Socket, onRead: (nread: number) => undefined): boolean {
  if (process.env.STRATA_SOCKET_READS === 'data') return false;
  const handle = (socket as unknown as { _handle?: Partial<HandleWithUserBuffer> | null })._handle;
  if (handle == null || typeof handle.useUserBuffer !== 'function') return false;
  if (slotKeys === undefined) slotKeys = findSlotKeys(socket);
  if (slotKeys === null) return false;
  const slots = socket as unknown as Record<symbol, unknown>;
  if (slots[slotKeys.buffer] !== null || slots[slotKeys.callback] !== null) return false;
  slots[slotKeys.buffer] = SHARED;
  slots[slotKeys.callback] = onRead;
  handle.useUserBuffer(SHARED);
  return true;
}

function findSlotKeys(socket: Socket): { buffer: symbol; callback: symbol } | null {
  let buffer: symbol | undefined;
  let callback: symbol | undefined;
  for (const s of Object.getOwnPropertySymbols(socket)) {
    if (s.description === 'kBuffer') buffer = s;
    else if (s.description === 'kBufferCb') callback = s;
  }
  return buffer !== undefined && callback !== undefined ? { buffer, callback } : null;
}
