import { expect, test } from 'vitest';
import { memoryFiles } from '../test/memory-files.js';
import { expandGlob, hasWildcard } from './include-glob.js';

const files = memoryFiles({
  '/etc/r/a.conf': '',
  '/etc/r/b.conf': '',
  '/etc/r/.c.conf': '',
  '/etc/r/sub/x.conf': '',
  '/etc/r/sub2/y.conf': '',
  '/etc/r/[lit].conf': '',
});

test.each([
  ['/etc/r/*.conf', ['/etc/r/[lit].conf', '/etc/r/a.conf', '/etc/r/b.conf']],
  ['/etc/r/.*.conf', ['/etc/r/.c.conf']],
  ['/etc/r/?.conf', ['/etc/r/a.conf', '/etc/r/b.conf']],
  ['/etc/r/[!a].conf', ['/etc/r/b.conf']],
  ['/etc/r/sub*/*.conf', ['/etc/r/sub/x.conf', '/etc/r/sub2/y.conf']],
  ['/etc/r/\\[lit].conf', ['/etc/r/[lit].conf']],
  ['/etc/none/*.conf', []],
  ['/etc/r/*.txt', []],
])('%s', async (pattern, paths) => {
  expect(hasWildcard(pattern)).toBe(true);
  expect(await expandGlob(pattern, files)).toEqual(paths);
});
