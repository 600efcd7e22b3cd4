import { defineConfig } from 'vitest/config';

// One root config: `pnpm test` runs every package's project. In CI a JSON
// report is written too, so .ci/run can print the `N passed, N failed` line.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*'],
    reporters: process.env.STRATA_TEST_JSON
      ? ['default', ['json', { outputFile: process.env.STRATA_TEST_JSON }]]
      : ['default'],
  },
});
