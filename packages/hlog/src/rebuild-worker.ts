import { parentPort, workerData } from 'node:worker_threads';
import { HashIndex } from './hash-index.js';
import { BatchInserter } from './index-rebuild.js';
import type { FromRebuildWorker, RebuildWorkerData, ToRebuildWorker } from './parallel-rebuild.js';

/**
 * The worker of the parallel whole-log rebuild (parallel-rebuild.ts):
 * inserts the batches it is sent, in order, then hands the index back.
 * Built as its own entry (dist/rebuild-worker.js).
 */

const port = parentPort;
if (port === null) throw new Error('rebuild-worker runs as a worker thread');
const data = workerData as RebuildWorkerData;
const index = new HashIndex({ initialBuckets: data.initialBuckets });
index.clock.fresh = data.fresh;
const inserter = new BatchInserter(index, data.bytes);

port.on('message', (m: ToRebuildWorker) => {
  try {
    if (m.kind === 'batch') {
      inserter.insert(m.hashes, m.addresses, m.n);
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
