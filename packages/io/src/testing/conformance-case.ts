import type { ConformanceOptions, DeviceFactory } from './conformance-types.js';

export type ResolvedOptions = Required<ConformanceOptions>;

/** One case of the conformance suite. */
export interface ConformanceCase {
  name: string;
  /** Registered only when the factory can reopen. */
  needsReopen?: boolean;
  run(factory: DeviceFactory, options: ResolvedOptions): Promise<void>;
}
