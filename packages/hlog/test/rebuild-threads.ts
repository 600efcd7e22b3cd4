/**
 * The thread count the recovery tests rebuild the index with: 1, or 2 in
 * their `*.threads.test.ts` runs (which set it, then load the same tests).
 * Each test file has its own module graph, so the setting stays in its run.
 */
let threads = 1;

export function rebuildThreadsUnderTest(): { rebuildThreads: number } {
  return { rebuildThreads: threads };
}

export function setRebuildThreadsUnderTest(n: number): void {
  threads = n;
}
