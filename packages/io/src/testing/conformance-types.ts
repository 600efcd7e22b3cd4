import type { Device } from '../device.js';

/**
 * The slice of a test framework the suite needs: vitest's, jest's, mocha's
 * and `node:test`'s `describe` and `it` all fit.
 */
export interface TestApi {
  describe(name: string, fn: () => void): void;
  it(name: string, fn: () => Promise<void>): void;
}

/** The geometry the suite asks a factory for; the device must report exactly these. */
export interface DeviceGeometry {
  segmentSize: number;
  alignment: number;
  maxInFlight: number;
}

/**
 * Makes devices for the suite. Each test calls `create` once (fresh, empty
 * storage), may call `reopen` (after closing the device it had) to get a new
 * device over the same storage, and finally calls `destroy`.
 */
export interface DeviceFactory {
  create(geometry: DeviceGeometry): Promise<Device>;
  /** For persistent devices: a device over the storage of the last `create`. Enables the reopen cases. */
  reopen?(geometry: DeviceGeometry): Promise<Device>;
  /** Removes the storage of the last `create`. */
  destroy?(): Promise<void>;
}

export interface ConformanceOptions {
  /** Seed of the random workloads. Default 1. */
  seed?: number;
  /** Operations in each randomized model test. Default 1500. */
  operations?: number;
  /** Operations issued at once in the in-flight test. Default 500. */
  concurrency?: number;
}
