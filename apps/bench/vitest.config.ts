import { strataProject } from '@strata/vitest-preset';

export default strataProject('bench', {
  // Builds strata-server from the sources once, for the scenarios that run it as a process.
  test: { globalSetup: ['./test/global-setup.ts'] },
});
