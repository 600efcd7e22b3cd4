import { concurrencyCases } from './concurrency-cases.js';
import type { ConformanceCase, ResolvedOptions } from './conformance-case.js';
import type { ConformanceOptions, DeviceFactory, TestApi } from './conformance-types.js';
import { dataCases } from './data-cases.js';
import { errorCases } from './error-cases.js';
import { lifecycleCases } from './lifecycle-cases.js';
import { statsCases } from './stats-cases.js';

/** Every case, in the order they are registered. */
export const conformanceCases: readonly ConformanceCase[] = [
  ...dataCases,
  ...lifecycleCases,
  ...concurrencyCases,
  ...statsCases,
  ...errorCases,
];

/**
 * Registers the device conformance suite under `describe(name)`: randomized
 * IO against a byte model, segment-crossing IO, short reads at the end,
 * holes, reopen (when the factory can), truncation, many operations in
 * flight, close semantics, stats, argument errors and error propagation.
 * Assertions use `node:assert/strict`; pass your framework's `describe`/`it`.
 *
 * ```ts
 * import { describe, it } from 'vitest';
 * runDeviceConformance({ describe, it }, 'MemoryDevice', {
 *   create: async (geometry) => new MemoryDevice(geometry),
 * });
 * ```
 */
export function runDeviceConformance(
  test: TestApi,
  name: string,
  factory: DeviceFactory,
  options: ConformanceOptions = {},
): void {
  const resolved: ResolvedOptions = {
    seed: options.seed ?? 1,
    operations: options.operations ?? 1500,
    concurrency: options.concurrency ?? 500,
  };
  test.describe(name, () => {
    for (const c of conformanceCases) {
      if (c.needsReopen === true && factory.reopen === undefined) continue;
      test.it(c.name, () => c.run(factory, resolved));
    }
  });
}
