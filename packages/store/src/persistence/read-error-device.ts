import { join } from 'node:path';
import { type Device, isStrataError } from '@strata/io';
import { ForwardingDevice } from './forwarding-device.js';
import type { PersistenceLogger } from './persistence-logger.js';

/** A failure is logged again only after this long without it (per file and code). */
const QUIET_MS = 60_000;

/**
 * A database's log device whose read failures (EIO from a bad sector, a
 * segment file gone) are logged with the file and the OS code: once, not
 * once per command that meets them (each such command answers its error);
 * again only after a minute without that failure on that file.
 */
export class ReadErrorLogDevice extends ForwardingDevice {
  /** `segment:code` -> when it last failed (ms). */
  private readonly seen = new Map<string, number>();

  constructor(
    inner: Device,
    private readonly name_: string,
    private readonly dir: string,
    private readonly logger: PersistenceLogger,
    private readonly now: () => number = Date.now,
  ) {
    super(inner);
  }

  /** Bound once: a read that works costs no closure. */
  private readonly onFailure = (e: unknown): never => {
    this.failed(e);
    throw e;
  };

  override read(address: number, into: Uint8Array): Promise<number> {
    return this.inner.read(address, into).catch(this.onFailure);
  }

  private failed(e: unknown): void {
    // Reads cut short by a close are no device failure.
    if (isStrataError(e) && e.code === 'ERR_DEVICE_CLOSED') return;
    const address = isStrataError(e) ? e.address : undefined;
    const segment = isStrataError(e) ? e.segment : undefined;
    const os = (e as { osCode?: unknown }).osCode;
    const code = typeof os === 'string' ? os : isStrataError(e) ? e.code : 'unknown';
    const key = `${segment ?? '?'}:${code}`;
    const now = this.now();
    const last = this.seen.get(key);
    this.seen.set(key, now);
    if (last !== undefined && now - last < QUIET_MS) return;
    const where =
      segment === undefined
        ? `in ${this.dir}`
        : `file ${join(this.dir, `${this.inner.name}.${segment}`)}`;
    const why = e instanceof Error ? e.message : String(e);
    this.logger.warning(
      `${this.name_}: cannot read its log ${where} (${code})${address === undefined ? '' : ` at address ${address}`}: ${why}. ` +
        'Commands that need records there answer an error; logged again after a minute without it.',
    );
  }
}
