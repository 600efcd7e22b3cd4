import { strataProject } from '@strata/vitest-preset';

export default strataProject('server', {
  // Builds the CLI from the sources once, for the tests that spawn it.
  test: { globalSetup: ['./test/global-setup.ts'] },
});
