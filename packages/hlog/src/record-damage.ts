import type { CorruptRecordError } from './errors.js';

/** Distinct damaged addresses remembered to report each once; past it, every one is reported. */
const REMEMBERED = 1 << 16;

/**
 * What a store saw of damage on its device: records that failed
 * verification when read (each read counts; each address is reported to
 * `onCorrupt` once), and pages that whole-log readers skipped as damaged.
 * The server's INFO shows the counts and logs each report.
 */
export class DamageLog {
  /** Reads of a record that failed verification (every one: a client retrying counts again). */
  recordReads = 0;
  /** Distinct damaged record addresses seen. */
  records = 0;
  /** Pages a scan or compaction skipped as damaged. */
  pages = 0;
  /** The address of the last damaged record or page seen, -1 for none. */
  lastAddress = -1;
  /** Hears each damaged address once: a record (with its key) or a page (`key` null). */
  onCorrupt: ((address: number, what: string, key: Buffer | null) => void) | null = null;
  private readonly seen = new Set<number>();

  /** A read of a record failed verification. */
  record(e: CorruptRecordError): void {
    this.recordReads++;
    this.lastAddress = e.recordAddress;
    if (this.first(e.recordAddress)) {
      this.records++;
      this.report(e.recordAddress, e.damage, e.key);
    }
  }

  /** A whole-log reader skipped the page at `address` (`reason`: what its check found). */
  page(address: number, reason: string): void {
    this.lastAddress = address;
    if (this.first(address)) {
      this.pages++;
      this.report(address, reason, null);
    }
  }

  private first(address: number): boolean {
    if (this.seen.has(address)) return false;
    if (this.seen.size < REMEMBERED) this.seen.add(address);
    return true;
  }

  private report(address: number, what: string, key: Buffer | null): void {
    try {
      this.onCorrupt?.(address, what, key);
    } catch {
      // A throwing listener must not turn a read's error into another.
    }
  }
}
