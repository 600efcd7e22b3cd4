import { setRebuildThreadsUnderTest } from '../test/rebuild-threads.js';

// The recovery-damage tests again, with every whole-log rebuild on two threads.
setRebuildThreadsUnderTest(2);
await import('./recovery-damage.test.js');
