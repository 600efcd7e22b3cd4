import { libraryConfig } from '@strata/tsup-preset';

export default libraryConfig();
