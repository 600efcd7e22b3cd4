/**
 * Work that yields between slices: a generator that `yield`s every few
 * hundred items of a long job (decoding a 1M-member collection), so it can
 * run either whole in one step (small inputs) or spread over event-loop
 * turns with `runSliced`, letting other connections be served meanwhile.
 */
export type Sliced<T> = Generator<void, T, void>;

/** Items a sliced job handles between two yields (checks of the clock). */
export const SLICE_ITEMS = 512;

/** Runs a sliced job to its end in this step. */
export function runWhole<T>(job: Sliced<T>): T {
  for (;;) {
    const r = job.next();
    if (r.done) return r.value;
  }
}

/**
 * Runs a sliced job for about `budgetMs` per event-loop turn, continuing
 * after setImmediate (I/O callbacks run in between). Resolves with its
 * result, rejects with what it throws.
 */
export function runSliced<T>(job: Sliced<T>, budgetMs = 4): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const turn = () => {
      try {
        const until = performance.now() + budgetMs;
        for (;;) {
          const r = job.next();
          if (r.done) {
            resolve(r.value);
            return;
          }
          if (performance.now() >= until) break;
        }
        setImmediate(turn);
      } catch (e) {
        reject(e);
      }
    };
    turn();
  });
}
