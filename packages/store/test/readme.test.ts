import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readmeExamples, runExample } from './readme-examples.js';

const readme = fileURLToPath(new URL('../README.md', import.meta.url));
const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url));

// Every ```ts example of the README, extracted and run as it is written
// there; each console.log whose comment shows its output is checked.
describe('README examples', () => {
  const examples = readmeExamples(readme);
  it('has examples', () => {
    expect(examples.length).toBeGreaterThanOrEqual(4);
  });
  for (const example of examples) {
    it(`runs the example at line ${example.line}`, async () => {
      expect(await runExample(example, '@strata/store', entry)).toEqual([]);
    }, 30_000);
  }
});
