import { testReadme } from '@strata/readme-examples';

// Every ```ts example of the README, extracted and run as it is written
// there; each console.log whose comment shows its output is checked.
await testReadme(new URL('../README.md', import.meta.url), { minExamples: 4 });
