import { DeviceClosedError, IoError, MemoryDevice } from '@strata/io';
import { expect, test } from 'vitest';
import { recordingLogger } from '../../test/support/recording-logger.js';
import { ForwardingDevice } from './forwarding-device.js';
import { ReadErrorLogDevice } from './read-error-device.js';

/** A memory device whose reads of segment 2 fail as a bad sector's do on a FileDevice. */
class BadSector extends ForwardingDevice {
  closing = false;
  override read(address: number, into: Uint8Array): Promise<number> {
    if (this.closing) return Promise.reject(new DeviceClosedError('log'));
    const segment = Math.floor(address / this.segmentSize);
    if (segment !== 2) return super.read(address, into);
    return Promise.reject(
      new IoError(`log: read failed in segment 2 at ${address}: EIO: i/o error, read`, {
        osCode: 'EIO',
        segment,
        address,
      }),
    );
  }
}

test('a failing read is logged once a minute with the segment file and the OS code; reads that work pass through', async () => {
  const lines: string[] = [];
  const logger = recordingLogger(lines);
  const inner = new BadSector(new MemoryDevice({ name: 'log', segmentSize: 1 << 16 }));
  await inner.write(0, new Uint8Array(4096).fill(9));
  let now = 1_000_000;
  const d = new ReadErrorLogDevice(inner, 'DB 5', '/data/5', logger, () => now);
  const buf = new Uint8Array(16);
  expect(await d.read(0, buf)).toBe(16);
  expect(buf[0]).toBe(9);
  const bad = 2 * (1 << 16) + 512;
  for (let i = 0; i < 50; i++) {
    await expect(d.read(bad, buf)).rejects.toThrow(/EIO/);
    now += 500;
  }
  expect(lines).toEqual([
    `DB 5: cannot read its log file /data/5/log.2 (EIO) at address ${bad}: log: read failed in segment 2 at ${bad}: EIO: i/o error, read. ` +
      'Commands that need records there answer an error; logged again after a minute without it.\n',
  ]);
  // A minute without it: the next one is a new line.
  now += 61_000;
  await expect(d.read(bad, buf)).rejects.toThrow(/EIO/);
  expect(lines).toHaveLength(2);
  // Reads cut short by closing are not device failures.
  inner.closing = true;
  await expect(d.read(0, buf)).rejects.toThrow(/closed/);
  expect(lines).toHaveLength(2);
});
