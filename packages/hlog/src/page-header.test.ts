import { describe, expect, it } from 'vitest';
import {
  checkPageHeader,
  PAGE_HEADER_SIZE,
  PageCheck,
  PageFlag,
  pageChecksumMatches,
  pageEpochOf,
  pageUsedOf,
  sealPageChecksum,
  writePageHeader,
} from './page-header.js';
import { createRecordSpace } from './record-layout.js';

const P = 1024;
const AT = 7 * P;

/** A records page at `AT` (epoch 3) using `used` bytes, sealed. */
function page(used: number, flags = 0) {
  const s = createRecordSpace(P);
  writePageHeader(s.bytes, 0, used, flags, AT, 3);
  s.bytes.fill(0xab, PAGE_HEADER_SIZE, Math.min(used, P));
  if (flags === 0 && used <= P) sealPageChecksum(s.bytes, 0);
  return s;
}

describe('checkPageHeader', () => {
  it('accepts a records page, and its checksum then decides', () => {
    const s = page(200);
    expect(checkPageHeader(s, 0, AT, 0, P)).toBe(PageCheck.RECORDS);
    expect(pageUsedOf(s, 0)).toBe(200);
    expect(pageEpochOf(s, 0)).toBe(3);
    expect(pageChecksumMatches(s, 0)).toBe(true);
    s.bytes[100] = 0;
    expect(pageChecksumMatches(s, 0)).toBe(false);
  });

  it('tells an empty page from a foreign one, and a copied page by its address', () => {
    expect(checkPageHeader(createRecordSpace(P), 0, AT, 0, P)).toBe(PageCheck.EMPTY);
    const foreign = createRecordSpace(P);
    foreign.bytes[5] = 1;
    expect(checkPageHeader(foreign, 0, AT, 0, P)).toBe(PageCheck.NO_HEADER);
    expect(checkPageHeader(page(200), 0, AT + P, 0, P)).toBe(PageCheck.ADDRESS_MISMATCH);
  });

  it('checks the epoch, then the used length against the limit', () => {
    expect(checkPageHeader(page(200), 0, AT, 4, P)).toBe(PageCheck.STALE);
    expect(checkPageHeader(page(200), 0, AT, 3, P)).toBe(PageCheck.RECORDS);
    expect(checkPageHeader(page(200), 0, AT, 0, 199)).toBe(PageCheck.BAD_LENGTH);
    expect(checkPageHeader(page(PAGE_HEADER_SIZE - 1), 0, AT, 0, P)).toBe(PageCheck.BAD_LENGTH);
  });

  it('knows blobs, whose length may exceed the page', () => {
    expect(checkPageHeader(page(5 * P, PageFlag.BLOB), 0, AT, 0, P)).toBe(PageCheck.BLOB);
    expect(checkPageHeader(page(8, PageFlag.BLOB), 0, AT, 0, P)).toBe(PageCheck.BAD_BLOB_LENGTH);
  });
});
