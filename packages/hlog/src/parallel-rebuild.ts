import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HashIndex, type HashIndexParts } from './hash-index.js';
import { IndexRebuilder } from './index-rebuild.js';

/**
 * The whole-log rebuild on two threads: this thread reads the log (pagebuf's
 * read-ahead), verifies every page and applies the recovery policy (torn
 * tail, damage skipped, epochs) exactly as the one-thread rebuild, hashes
 * each record's key, and hands the (hash, address) batches to a worker,
 * which inserts them into the index: the same batches, in log order, with
 * the same `BatchInserter`, so the worker's index is the one-thread
 * rebuild's, bit for bit (access words too: the worker is given this
 * thread's fresh word). The index then comes back by transfer (its chunks'
 * buffers move, nothing is copied).
 *
 * Why this split: a rebuild's time is about half reading, checksums and
 * hashing, half index inserts (cache misses on a large index), so the two
 * halves overlap on two cores. Splitting the inserts themselves by hash
 * partition (a SharedArrayBuffer index, one writer per bucket range) would
 * need the linear-hashing geometry frozen for the build and per-thread
 * overflow pools; with two cores this thread is busy with the reading
 * half anyway, so one inserting worker is what the cores can run.
 *
 * Batches travel by transfer (no copy); the worker hands each pair of
 * arrays back for reuse. At most `MAX_IN_FLIGHT` batches wait for the
 * worker: past that the scan pauses between read-ahead frames (`pace`),
 * so memory stays bounded when inserting is the slower half.
 */

/** What the worker is started with. */
export interface RebuildWorkerData {
  initialBuckets: number;
  /** The log about to be read (the index is reserved from the first batch, as on one thread). */
  bytes: number;
  /** The access word of new entries (the calling thread's clock at the start). */
  fresh: number;
}

/** Messages to the worker. */
export type ToRebuildWorker =
  | { kind: 'batch'; hashes: Float64Array; addresses: Float64Array; n: number }
  | { kind: 'end' };

/** Messages from the worker. */
export type FromRebuildWorker =
  | { kind: 'batch-done'; hashes: Float64Array; addresses: Float64Array }
  | { kind: 'index'; parts: HashIndexParts }
  | { kind: 'failed'; message: string };

/** Batches handed over and not yet inserted before the scan pauses (16 Ki records each). */
const MAX_IN_FLIGHT = 16;

/**
 * Below this much log the one-thread rebuild is used unless a thread count
 * is given: starting a worker (~30-60 ms) costs more than it saves.
 */
export const PARALLEL_MIN_BYTES = 64 << 20;

/** Threads a whole-log rebuild uses: 1, or 2 (this thread reading, one worker inserting). */
export type RebuildThreads = 1 | 2;

/**
 * How many threads to rebuild `bytes` of log with: `requested` (the
 * `rebuildThreads` option) when given, else the cores for a large enough
 * log. More than two are not used (see above). One when the worker's
 * script cannot be found (running from TypeScript sources without a build).
 */
export function rebuildThreads(requested: number | undefined, bytes: number): RebuildThreads {
  const wanted = requested ?? (bytes >= PARALLEL_MIN_BYTES ? availableParallelism() : 1);
  return wanted >= 2 && rebuildWorkerUrl() !== null ? 2 : 1;
}

let workerUrl: URL | null | undefined;

/**
 * The worker's script: `rebuild-worker.js` beside this module in the built
 * package (dist/), or the file `STRATA_HLOG_REBUILD_WORKER` names (tests
 * run from TypeScript sources build it first). Null when neither exists.
 */
export function rebuildWorkerUrl(): URL | null {
  if (workerUrl !== undefined) return workerUrl;
  const named = process.env.STRATA_HLOG_REBUILD_WORKER;
  const beside = new URL('./rebuild-worker.js', import.meta.url);
  if (named !== undefined && named !== '' && existsSync(named)) workerUrl = pathToFileURL(named);
  else workerUrl = existsSync(fileURLToPath(beside)) ? beside : null;
  return workerUrl;
}

/** Points the rebuild at another worker script, or none (tests: a worker that fails). */
export function useRebuildWorker(url: URL | null): void {
  workerUrl = url;
}

/** The worker failed (could not start, threw, or exited): the rebuild is run again on one thread. */
export class RebuildWorkerFailure extends Error {}

export class ParallelIndexRebuilder extends IndexRebuilder {
  private readonly worker: Worker;
  private readonly spare: Array<[Float64Array, Float64Array]> = [];
  private inFlight = 0;
  private failure: RebuildWorkerFailure | null = null;
  private resume: (() => void) | null = null;
  private readonly built: Promise<HashIndex>;

  constructor(url: URL, data: RebuildWorkerData) {
    super(null);
    this.worker = new Worker(url, { workerData: data });
    // A store that never finishes its rebuild must not be kept alive by it.
    this.worker.unref();
    this.built = new Promise<HashIndex>((resolve, reject) => {
      let settled = false;
      const fail = (why: string): void => {
        if (settled) return;
        settled = true;
        this.failure ??= new RebuildWorkerFailure(`index rebuild worker: ${why}`);
        this.wake();
        reject(this.failure);
      };
      this.worker.on('message', (m: FromRebuildWorker) => {
        if (m.kind === 'batch-done') {
          this.inFlight--;
          this.spare.push([m.hashes, m.addresses]);
          if (this.inFlight <= MAX_IN_FLIGHT / 2) this.wake();
        } else if (m.kind === 'index') {
          try {
            const index = HashIndex.fromParts(m.parts);
            settled = true;
            resolve(index);
          } catch (e) {
            fail(String(e));
          }
        } else fail(m.message);
      });
      this.worker.on('error', (e) => fail(String(e)));
      this.worker.on('messageerror', (e) => fail(String(e)));
      this.worker.on('exit', (code) => fail(`exited (code ${code}) before handing back the index`));
    });
    // Seen by `finish` (or never, when the scan itself failed first).
    this.built.catch(() => {});
  }

  protected override handOff(n: number): void {
    if (this.failure !== null) return;
    const { hashes, addresses } = this;
    const batch: ToRebuildWorker = { kind: 'batch', hashes, addresses, n };
    this.worker.postMessage(batch, [hashes.buffer as ArrayBuffer, addresses.buffer as ArrayBuffer]);
    this.inFlight++;
    const next = this.spare.pop();
    this.hashes = next?.[0] ?? new Float64Array(this.capacity);
    this.addresses = next?.[1] ?? new Float64Array(this.capacity);
  }

  /**
   * Between read-ahead frames: a promise while the worker is too far
   * behind (the scan waits on it); throws once the worker failed.
   */
  pace(): Promise<void> | undefined {
    if (this.failure !== null) throw this.failure;
    if (this.inFlight <= MAX_IN_FLIGHT) return undefined;
    return new Promise<void>((resolve) => {
      this.resume = resolve;
    }).then(() => {
      if (this.failure !== null) throw this.failure;
    });
  }

  /** Hands over the last batch and waits for the worker's index. */
  async finish(): Promise<HashIndex> {
    this.flush();
    if (this.failure === null) {
      const end: ToRebuildWorker = { kind: 'end' };
      this.worker.postMessage(end);
    }
    try {
      return await this.built;
    } finally {
      await this.worker.terminate();
    }
  }

  /** Stops the worker (the scan failed, or the rebuild is abandoned). */
  async abort(): Promise<void> {
    this.failure ??= new RebuildWorkerFailure('index rebuild worker: aborted');
    await this.worker.terminate();
  }

  private wake(): void {
    const resume = this.resume;
    this.resume = null;
    resume?.();
  }
}
