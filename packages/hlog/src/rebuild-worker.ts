import { parentPort, workerData } from 'node:worker_threads';
import { HashIndex } from './hash-index.js';
import type { FromRebuildWorker, RebuildWorkerData, ToRebuildWorker } from './parallel-rebuild.js';

/**
 * The worker of the parallel whole-log rebuild (parallel-rebuild.ts):
 * sizes its part of the index as it is told, inserts the batches it is
 * sent, in order, then hands the part back. Built as its own entry
 * (dist/rebuild-worker.js).
 */

const port = parentPort;
if (port === null) throw new Error('rebuild-worker runs as a worker thread');
const { initialBuckets } = workerData as RebuildWorkerData;
/** The worker's part, made at 'start' (never, when the log holds no record). */
let index: HashIndex | null = null;

port.on('message', (m: ToRebuildWorker) => {
  try {
    if (m.kind === 'start') {
      index = new HashIndex({
        initialBuckets,
        part: { from: m.from, to: Number.POSITIVE_INFINITY },
      });
      index.reserve(m.entries);
    } else if (m.kind === 'batch') {
      if (index === null) throw new Error('a batch before the start');
      // Access words are filled once the parts are joined.
      index.insertBatch(m.hashes, m.addresses, m.n, true);
      const done: FromRebuildWorker = {
        kind: 'batch-done',
        hashes: m.hashes,
        addresses: m.addresses,
      };
      port.postMessage(done, [m.hashes.buffer as ArrayBuffer, m.addresses.buffer as ArrayBuffer]);
    } else {
      const parts = (index ?? new HashIndex({ initialBuckets })).parts();
      const reply: FromRebuildWorker = { kind: 'index', parts };
      port.postMessage(reply, HashIndex.buffersOf(parts));
      port.close();
    }
  } catch (e) {
    const failed: FromRebuildWorker = { kind: 'failed', message: String(e) };
    port.postMessage(failed);
  }
});
