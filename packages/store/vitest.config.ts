import { strataProject } from '@strata/vitest-preset';

export default strataProject('store');
