import { cliConfig } from '@strata/tsup-preset';

export default cliConfig();
