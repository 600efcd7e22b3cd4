import type { Denial } from './acl-check.js';

export type LogReason = Denial | 'auth';
export type LogContext = 'toplevel' | 'multi' | 'lua';

/** One ACL LOG entry (Redis's ACLLogEntry). */
export interface AclLogEntry {
  count: number;
  readonly reason: LogReason;
  readonly context: LogContext;
  /** The command's full name, the key or channel, or the AUTH command's name as sent. */
  readonly object: Buffer;
  readonly username: Buffer;
  /** ms of the last update. */
  time: number;
  clientInfo: string;
}

/** Redis's ACL_LOG_GROUPING_MAX_TIME_DELTA: alike entries this close are one, counted. */
const GROUPING_MS = 60_000;

/**
 * The ACL log, newest first, at most acllog-max-len entries: a denial
 * like one of the last ten within a minute bumps its count (addACLLogEntry).
 */
export class AclLog {
  readonly entries: AclLogEntry[] = [];
  maxLen = 128;

  add(e: Omit<AclLogEntry, 'count'>): void {
    const n = Math.min(10, this.entries.length);
    for (let i = 0; i < n; i++) {
      const cur = this.entries[i]!;
      if (
        cur.reason === e.reason &&
        cur.context === e.context &&
        Math.abs(cur.time - e.time) <= GROUPING_MS &&
        cur.object.equals(e.object) &&
        cur.username.equals(e.username)
      ) {
        this.entries.splice(i, 1);
        this.entries.unshift(cur);
        cur.clientInfo = e.clientInfo;
        cur.time = e.time;
        cur.count++;
        return;
      }
    }
    this.entries.unshift({ ...e, count: 1 });
    if (this.entries.length > this.maxLen) this.entries.length = this.maxLen;
  }

  reset(): void {
    this.entries.length = 0;
  }
}
