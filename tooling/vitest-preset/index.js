// Shared vitest settings for every Strata project. Tests import package
// sources through the `@strata/source` export condition, so no build step
// is needed before `pnpm test`.
import { defineProject } from 'vitest/config';

/** @param {string} name project name shown in the test report */
export function strataProject(name, overrides = {}) {
  return defineProject({
    resolve: { conditions: ['@strata/source'] },
    ssr: { resolve: { conditions: ['@strata/source'] } },
    ...overrides,
    test: {
      name,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      environment: 'node',
      testTimeout: 30_000,
      hookTimeout: 30_000,
      ...(overrides.test ?? {}),
    },
  });
}
