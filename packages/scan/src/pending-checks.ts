import { keyLengthOf, keyOffsetOf } from '@strata/hlog';
import type { LivenessChecker, LiveVisitor } from './liveness.js';
import type { PageContext } from './log-iterator.js';

/**
 * Liveness checks of one device page that need the device (their chain
 * crosses another on-device page). They are queued while the page is
 * walked and resolved together when it ends, all reads in flight at once,
 * while the page's bytes are still valid (the keys are compared in place).
 * Parallel number arrays reused across pages: queueing allocates nothing
 * once warm.
 */
export class PendingChecks {
  private readonly offsets: number[] = [];
  private readonly addresses: number[] = [];
  private readonly froms: number[] = [];
  count = 0;

  constructor(private readonly liveness: LivenessChecker) {}

  add(offset: number, address: number, from: number): void {
    const i = this.count++;
    this.offsets[i] = offset;
    this.addresses[i] = address;
    this.froms[i] = from;
  }

  /** Resolves the queue; `onLive` gets each record found live, in queue order. */
  async resolve(page: PageContext, onLive: LiveVisitor): Promise<void> {
    const n = this.count;
    if (n === 0) return;
    const rec = page.rec;
    const checks: Promise<boolean>[] = [];
    for (let i = 0; i < n; i++) {
      const off = this.offsets[i]!;
      checks.push(
        this.liveness.resolveOnDisk(
          rec,
          keyOffsetOf(rec, off),
          keyLengthOf(rec, off),
          this.addresses[i]!,
          this.froms[i]!,
        ),
      );
    }
    const live = await Promise.all(checks);
    for (let i = 0; i < n; i++) if (live[i]) onLive(rec, this.offsets[i]!, this.addresses[i]!);
    this.count = 0;
  }

  clear(): void {
    this.count = 0;
  }
}
