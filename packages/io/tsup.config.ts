import { libraryConfig } from '@strata/tsup-preset';

export default libraryConfig({ index: 'src/index.ts', 'testing/index': 'src/testing/index.ts' });
