/**
 * A checkpoint hook (`Store.onBeforeCheckpoint`) for a store whose writes
 * are logged beside it (strata-server's AOF, the embedded store's
 * transactions): it lets the fold-over mark fall only in the first step of
 * an event-loop turn of its own, never in the middle of another callback's
 * microtasks.
 *
 * Why: a write command that went to the disk changes the store in one
 * microtask and is logged (an AOF record carries the log page it saw) a
 * few microtasks later, when its promise settles. A fold-over landing in
 * between would put a change the checkpoint holds after the checkpoint's
 * AOF position (applied twice at recovery). Every such gap opens and closes
 * inside one callback's microtasks, so none is open at the start of a
 * callback of our own (setImmediate).
 *
 * The first call asks the checkpoint to wait for that callback (a promise);
 * the round right after it may take the mark; any later round (another
 * hook still busy, no free frame) waits for a new one.
 */
export function foldOverOnOwnTurn(): () => Promise<void> | undefined {
  let ready = false;
  return () => {
    if (ready) {
      ready = false;
      return undefined;
    }
    return new Promise<void>((resolve) => {
      setImmediate(() => {
        ready = true;
        resolve();
        // Valid for this callback's microtasks only: Node runs the ticks
        // queued from a microtask once the whole microtask queue is empty.
        // A round that had to wait again (the count was settling) meets a
        // stale turn and waits for a new one.
        queueMicrotask(() =>
          process.nextTick(() => {
            ready = false;
          }),
        );
      });
    });
  };
}
