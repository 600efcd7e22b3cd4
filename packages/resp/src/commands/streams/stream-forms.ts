import {
  formatStreamId,
  type PendingEntry,
  type StreamGroup,
  type StreamId,
} from '@strata/collections';
import type { Client } from '../../server/client.js';

/**
 * The replay forms of group changes whose outcome depends on the clock
 * (deliveries, claims), as Redis propagates them: an exact XCLAIM per PEL
 * entry, and the group's last ID with its entries-read counter.
 */

const XCLAIM = Buffer.from('XCLAIM');
const XGROUP = Buffer.from('XGROUP');
const SETID = Buffer.from('SETID');
const ENTRIESREAD = Buffer.from('ENTRIESREAD');
const ZERO = Buffer.from('0');
const TIME = Buffer.from('TIME');
const RETRYCOUNT = Buffer.from('RETRYCOUNT');
const FORCE = Buffer.from('FORCE');
const JUSTID = Buffer.from('JUSTID');
const LASTID = Buffer.from('LASTID');

/**
 * `XCLAIM key group consumer 0 id TIME t RETRYCOUNT n FORCE JUSTID LASTID
 * last`: replayed, it sets the PEL entry as it is now (or, for an entry no
 * longer in the stream, removes it).
 */
export function claimForm(
  key: Buffer,
  groupName: Buffer,
  g: StreamGroup,
  id: StreamId,
  e: PendingEntry,
): Buffer[] {
  return [
    XCLAIM,
    key,
    groupName,
    Buffer.from(e.consumer.name, 'latin1'),
    ZERO,
    Buffer.from(formatStreamId(id)),
    TIME,
    Buffer.from(String(e.deliveryTime)),
    RETRYCOUNT,
    Buffer.from(String(e.deliveryCount)),
    FORCE,
    JUSTID,
    LASTID,
    Buffer.from(formatStreamId(g.lastId)),
  ];
}

/** `XGROUP SETID key group last ENTRIESREAD n`. */
export function setIdForm(key: Buffer, groupName: Buffer, g: StreamGroup): Buffer[] {
  return [
    XGROUP,
    SETID,
    key,
    groupName,
    Buffer.from(formatStreamId(g.lastId)),
    ENTRIESREAD,
    Buffer.from(String(g.entriesRead)),
  ];
}

/**
 * Sets the running command's replay forms: `forms`, or nothing at all when
 * it changed nothing (a read or claim that found nothing is not logged).
 */
export function logForms(c: Client, forms: readonly Buffer[][]): void {
  if (c.server.commandLog === null || c.replay) return;
  if (forms.length === 0) c.propagate();
  for (const f of forms) c.propagate(...f);
}
