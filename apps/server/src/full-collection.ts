import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | null | undefined;

/**
 * V8's full collection as a function, or null where it cannot be had.
 * strata-server runs it shortly after a client let go of a huge request
 * (RespServerOptions.releaseMemory) and on MEMORY PURGE: the Buffers that
 * request left dead are freed then, not when V8 next needs room, which an
 * idle server may not for minutes (a 400 MB SET then DEL kept 1.25 GB).
 * `--expose-gc`, set at run time, puts `gc` in contexts made after it; it is
 * unset again at once, so no other context gets it.
 */
export function fullCollection(): (() => void) | null {
  if (collect === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      const gc: unknown = runInNewContext('gc');
      collect = typeof gc === 'function' ? () => void gc() : null;
    } catch {
      collect = null;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  return collect;
}
