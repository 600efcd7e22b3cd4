import { describe, expect, it } from 'vitest';
import { canDropPageCache } from './page-cache.js';

describe('page cache', () => {
  it('may drop the cache only as root on Linux', () => {
    const root = process.platform === 'linux' && process.getuid?.() === 0;
    expect(canDropPageCache()).toBe(root);
  });
  // dropPageCache() itself is exercised by the io-seq-read end-to-end run;
  // not here, so that unit tests do not evict other suites' files.
});
