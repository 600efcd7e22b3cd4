import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HashIndex, type HashIndexParts } from './hash-index.js';
import { entriesToReserve, IndexRebuilder } from './index-rebuild.js';

/**
 * The whole-log rebuild on two threads. This thread reads the log
 * (pagebuf's read-ahead), verifies every page and applies the recovery
 * policy (torn tail, damage skipped, epochs) exactly as the one-thread
 * rebuild, and hashes each record's key; the index inserts, the other
 * half of the work (cache misses on a large index), are split by bucket:
 * a worker owns most of the buckets and inserts their records, this thread
 * the rest (an eighth: see OWN_SHARE).
 *
 * Each thread builds an index of the same geometry (sized from the first
 * batch, as the one-thread rebuild is, and not split while building), with
 * only its own buckets' records, in log order: so the newest record of each
 * (bucket, tag) wins in each, exactly as on one thread. The worker's index
 * comes back by transfer (its chunks' buffers move, nothing is copied) and
 * the two are joined (`HashIndex.join`: this thread's buckets, the
 * worker's buckets, its overflow buckets renumbered), then grown if the
 * first batch underestimated the log, and the access words set to the
 * fresh word, as each insert on one thread would have. The entries and
 * what every lookup finds are the one-thread rebuild's; only the places
 * of some entries in their bucket chains may differ (a split during the
 * build against one after it).
 *
 * Batches travel by transfer (no copy); the worker hands each pair of
 * arrays back for reuse. At most `MAX_IN_FLIGHT` batches wait for the
 * worker: past that the scan pauses between read-ahead frames (`pace`),
 * so memory stays bounded when the worker is the slower.
 */

/** What the worker is started with. */
export interface RebuildWorkerData {
  initialBuckets: number;
}

/** Messages to the worker. */
export type ToRebuildWorker =
  /** The worker's part: buckets from `from` on, grown for `entries` (the first batch's estimate). */
  | { kind: 'start'; entries: number; from: number }
  | { kind: 'batch'; hashes: Float64Array; addresses: Float64Array; n: number }
  | { kind: 'end' };

/** Messages from the worker. */
export type FromRebuildWorker =
  | { kind: 'batch-done'; hashes: Float64Array; addresses: Float64Array }
  | { kind: 'index'; parts: HashIndexParts }
  | { kind: 'failed'; message: string };

/** Batches handed over and not yet inserted before the scan pauses (16 Ki records, 256 KiB each). */
const MAX_IN_FLIGHT = 16;
/**
 * The same while the worker is still starting (1 Mi records, 16 MiB of
 * batches: the scan goes on meanwhile rather than waiting for its start,
 * which takes far longer than usual on a loaded machine).
 */
const MAX_IN_FLIGHT_STARTING = 64;

/**
 * This thread's share of the buckets (it also reads and verifies the log).
 * Per-thread CPU times (2M records, loaded machine) came closest with a
 * quarter, but wall time with the CPU to itself (3 interleaved rounds)
 * was best with none or an eighth (545-650 and 574-674 ms) against a
 * quarter's 615-735: the worker's start and the two threads' contention
 * for memory are not in the CPU split.
 */
const OWN_SHARE = 1 / 8;

/** Buckets per index chunk: the parts are split on chunk bounds. */
const CHUNK_BUCKETS = 4096;

/**
 * Below this much log the one-thread rebuild is used unless a thread count
 * is given: starting a worker (~30-60 ms of CPU, far longer in wall time on
 * a loaded machine) and joining the parts cost about what they save on a
 * rebuild of well under a second.
 */
export const PARALLEL_MIN_BYTES = 256 << 20;

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
  /** The worker runs (its 'online' event). */
  private online = false;
  private failure: RebuildWorkerFailure | null = null;
  private resume: (() => void) | null = null;
  private readonly result: Promise<HashIndex>;
  /** This thread's part, made at the first batch (null before). */
  private own: HashIndex | null = null;
  /** Buckets below this are this thread's. */
  private atBucket = 0;
  private ownHashes: Float64Array;
  private ownAddresses: Float64Array;
  private ownN = 0;
  private sendHashes: Float64Array;
  private sendAddresses: Float64Array;
  private sendN = 0;

  constructor(
    url: URL,
    private readonly initialBuckets: number,
    bytes: number,
    /** The access word of every entry (the clock at the start of the rebuild). */
    private readonly fresh: number,
  ) {
    super(null, bytes);
    this.ownHashes = new Float64Array(this.capacity);
    this.ownAddresses = new Float64Array(this.capacity);
    this.sendHashes = new Float64Array(this.capacity);
    this.sendAddresses = new Float64Array(this.capacity);
    const data: RebuildWorkerData = { initialBuckets };
    // Not unref'd: while the scan waits for it, or `built` for its part, the
    // worker is all that keeps the process running. It is always stopped
    // (`built`, `abort`).
    this.worker = new Worker(url, { workerData: data });
    this.result = new Promise<HashIndex>((resolve, reject) => {
      let settled = false;
      const fail = (why: string): void => {
        if (settled) return;
        settled = true;
        this.failure ??= new RebuildWorkerFailure(`index rebuild worker: ${why}`);
        this.wake();
        reject(this.failure);
      };
      this.worker.on('online', () => {
        this.online = true;
      });
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
    // Seen by `built` (or never, when the scan itself failed first).
    this.result.catch(() => {});
  }

  override add(hash: number, address: number): void {
    const own = this.own;
    if (own === null) {
      super.add(hash, address);
    } else if (own.bucketOf(hash) < this.atBucket) {
      const n = this.ownN;
      this.ownHashes[n] = hash;
      this.ownAddresses[n] = address;
      if (++this.ownN === this.capacity) this.insertOwn();
    } else {
      const n = this.sendN;
      this.sendHashes[n] = hash;
      this.sendAddresses[n] = address;
      if (++this.sendN === this.capacity) this.send();
    }
  }

  /** The first batch: sets both parts' geometry from it, then splits it between them. */
  protected override handOff(n: number): void {
    const { initialBuckets } = this;
    const entries = entriesToReserve(0, this.bytes, this.addresses, n);
    const chunks = Math.ceil(HashIndex.bucketsReserved(initialBuckets, entries) / CHUNK_BUCKETS);
    const at = Math.floor(chunks * OWN_SHARE) * CHUNK_BUCKETS;
    // Each part allocates only its own buckets' chunks.
    const own = new HashIndex({ initialBuckets, part: { from: 0, to: at } });
    own.reserve(entries);
    this.own = own;
    this.atBucket = at;
    this.post({ kind: 'start', entries, from: at });
    for (let i = 0; i < n; i++) this.add(this.hashes[i]!, this.addresses[i]!);
  }

  override flush(): void {
    super.flush();
    this.insertOwn();
    this.send();
  }

  /** Joins the parts in `built`. */
  override finish(): void {
    this.flush();
  }

  /**
   * Between read-ahead frames: a promise while the worker is too far
   * behind (the scan waits on it); throws once the worker failed.
   */
  pace(): Promise<void> | undefined {
    if (this.failure !== null) throw this.failure;
    if (this.inFlight <= (this.online ? MAX_IN_FLIGHT : MAX_IN_FLIGHT_STARTING)) return undefined;
    return new Promise<void>((resolve) => {
      this.resume = resolve;
    }).then(() => {
      if (this.failure !== null) throw this.failure;
    });
  }

  /** After `finish`: the worker's part, joined with this thread's. */
  async built(): Promise<HashIndex> {
    if (this.failure === null) this.post({ kind: 'end' });
    let theirs: HashIndex;
    try {
      theirs = await this.result;
    } finally {
      await this.worker.terminate();
    }
    const own = this.own;
    // No record at all: the worker's index is the empty one.
    if (own === null) return theirs;
    const index = HashIndex.join(own, theirs, this.atBucket);
    if (index === null) throw new RebuildWorkerFailure('index rebuild worker: parts do not match');
    // The first batch's estimate was short: grow as the inserts would have.
    index.reserve(index.size);
    index.fillAccess(this.fresh);
    return index;
  }

  /** Stops the worker (the scan failed, or the rebuild is abandoned). */
  async abort(): Promise<void> {
    this.failure ??= new RebuildWorkerFailure('index rebuild worker: aborted');
    await this.worker.terminate();
  }

  private insertOwn(): void {
    if (this.ownN === 0) return;
    this.own!.insertBatch(this.ownHashes, this.ownAddresses, this.ownN, true);
    this.ownN = 0;
  }

  private send(): void {
    const n = this.sendN;
    if (n === 0 || this.failure !== null) return;
    this.sendN = 0;
    const { sendHashes: hashes, sendAddresses: addresses } = this;
    this.worker.postMessage({ kind: 'batch', hashes, addresses, n } satisfies ToRebuildWorker, [
      hashes.buffer as ArrayBuffer,
      addresses.buffer as ArrayBuffer,
    ]);
    this.inFlight++;
    const next = this.spare.pop();
    this.sendHashes = next?.[0] ?? new Float64Array(this.capacity);
    this.sendAddresses = next?.[1] ?? new Float64Array(this.capacity);
  }

  private post(m: ToRebuildWorker): void {
    this.worker.postMessage(m);
  }

  private wake(): void {
    const resume = this.resume;
    this.resume = null;
    resume?.();
  }
}
