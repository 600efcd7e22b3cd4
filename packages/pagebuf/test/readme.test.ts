import { fileURLToPath } from 'node:url';
import { testReadme } from '@strata/readme-examples';

// Every ```ts example of the README, run as it is written there (see
// tooling/readme-examples).
await testReadme(new URL('../README.md', import.meta.url), {
  imports: {
    '@strata/pagebuf': fileURLToPath(new URL('../src/index.ts', import.meta.url)),
  },
  minExamples: 7,
});
