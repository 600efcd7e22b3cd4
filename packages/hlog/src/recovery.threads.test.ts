import { setRebuildThreadsUnderTest } from '../test/rebuild-threads.js';

// The recovery tests again, with every whole-log rebuild on two threads.
setRebuildThreadsUnderTest(2);
await import('./recovery.test.js');
