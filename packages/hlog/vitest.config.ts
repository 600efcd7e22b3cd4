import { strataProject } from '@strata/vitest-preset';

// The parallel index rebuild's worker is bundled from the sources first.
export default strataProject('hlog', {
  test: { globalSetup: ['./scripts/rebuild-worker-setup.ts'] },
});
