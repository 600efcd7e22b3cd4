import { setRebuildThreadsUnderTest } from '../test/rebuild-threads.js';

// The store-model tests again, with every whole-log rebuild on two threads.
setRebuildThreadsUnderTest(2);
await import('./store-model.test.js');
