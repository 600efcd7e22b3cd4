import assert from 'node:assert/strict';
import type { Device } from '../device.js';
import type { DeviceFactory, DeviceGeometry } from './conformance-types.js';

export const SMALL: DeviceGeometry = { segmentSize: 4096, alignment: 1, maxInFlight: 8 };

/** A test's device, reopened as needed; `run` cleans up whatever happens. */
export class Session {
  device!: Device;
  private readonly factory: DeviceFactory;
  readonly geometry: DeviceGeometry;

  private constructor(factory: DeviceFactory, geometry: DeviceGeometry) {
    this.factory = factory;
    this.geometry = geometry;
  }

  static async run(
    factory: DeviceFactory,
    geometry: DeviceGeometry,
    body: (session: Session) => Promise<void>,
  ): Promise<void> {
    const session = new Session(factory, geometry);
    try {
      session.device = session.check(await factory.create(geometry));
      await body(session);
    } finally {
      try {
        if (session.device !== undefined && !session.device.closed) await session.device.close();
      } finally {
        await factory.destroy?.();
      }
    }
  }

  get canReopen(): boolean {
    return this.factory.reopen !== undefined;
  }

  /** Closes the device and opens a new one over the same storage. */
  async reopen(): Promise<Device> {
    const reopen = this.factory.reopen;
    assert.ok(reopen !== undefined, 'factory has no reopen');
    await this.device.close();
    this.device = this.check(await reopen.call(this.factory, this.geometry));
    return this.device;
  }

  private check(device: Device): Device {
    const g = this.geometry;
    assert.equal(device.segmentSize, g.segmentSize, 'factory must honour segmentSize');
    assert.equal(device.alignment, g.alignment, 'factory must honour alignment');
    assert.equal(device.maxInFlight, g.maxInFlight, 'factory must honour maxInFlight');
    assert.equal(device.closed, false, 'a new device is open');
    return device;
  }
}
