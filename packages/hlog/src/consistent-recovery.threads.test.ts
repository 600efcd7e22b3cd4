import { setRebuildThreadsUnderTest } from '../test/rebuild-threads.js';

// The consistent-recovery tests again, with every whole-log rebuild on two threads.
setRebuildThreadsUnderTest(2);
await import('./consistent-recovery.test.js');
