import type { HybridLog } from './hybrid-log.js';
import {
  checkPageHeader,
  PAGE_HEADER_SIZE,
  PageCheck,
  pageChecksumMatches,
  pageUsedOf,
} from './page-header.js';
import { align8, createRecordSpace } from './record-layout.js';

/** Pages remembered as verified; past it, a page is read again (old logs only). */
const REMEMBERED = 4096;

/**
 * Verifies a record written before records carried checksums (no CHECKSUM
 * flag) through its page: the page at `address`'s start is read whole and
 * its checksum checked, once per page and session (pages on the device
 * never change while a store has them open; everything this session writes
 * has record checksums). A record whose CHECKSUM flag was flipped off comes
 * here too, and its page's checksum then fails. The cost, a page read per
 * page first met, falls only on logs written before, until compaction or
 * overwrites move their records.
 */
/** What the check needs of the store (its CoreState). */
export interface LegacyPageHost {
  readonly log: HybridLog;
  /** Pages verified this session. */
  readonly verifiedPages: Set<number>;
  readonly counters: { diskReads: number };
}

export async function legacyPageVerified(c: LegacyPageHost, address: number): Promise<boolean> {
  const P = c.log.pageSize;
  const page = Math.floor(address / P) * P;
  if (c.verifiedPages.has(page)) return true;
  const head = createRecordSpace(PAGE_HEADER_SIZE);
  c.counters.diskReads++;
  if ((await c.log.device.read(page, head.bytes)) < PAGE_HEADER_SIZE) return false;
  if (checkPageHeader(head, 0, page, 0, P) !== PageCheck.RECORDS) return false;
  const used = pageUsedOf(head, 0);
  const whole = createRecordSpace(align8(used));
  c.counters.diskReads++;
  if ((await c.log.device.read(page, whole.bytes.subarray(0, used))) < used) return false;
  if (!pageChecksumMatches(whole, 0)) return false;
  if (c.verifiedPages.size < REMEMBERED) c.verifiedPages.add(page);
  return true;
}
