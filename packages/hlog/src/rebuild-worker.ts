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
const data = workerData as RebuildWorkerData;
const index = new HashIndex({ initialBuckets: data.initialBuckets });

port.on('message', (m: ToRebuildWorker) => {
  try {
    if (m.kind === 'start') {
      index.reserve(m.entries);
      index.fixGeometry();
    } else if (m.kind === 'batch') {
      // Access words are filled once the parts are joined.
      index.insertBatch(m.hashes, m.addresses, m.n, true);
      const done: FromRebuildWorker = {
        kind: 'batch-done',
        hashes: m.hashes,
        addresses: m.addresses,
      };
      port.postMessage(done, [m.hashes.buffer as ArrayBuffer, m.addresses.buffer as ArrayBuffer]);
    } else {
      const parts = index.parts();
      const reply: FromRebuildWorker = { kind: 'index', parts };
      port.postMessage(reply, HashIndex.buffersOf(parts));
      port.close();
    }
  } catch (e) {
    const failed: FromRebuildWorker = { kind: 'failed', message: String(e) };
    port.postMessage(failed);
  }
});
