import { fileURLToPath } from 'node:url';
import { testReadme } from '@strata/readme-examples';

const src = (file: string) => fileURLToPath(new URL(`../src/${file}`, import.meta.url));

// Every ```ts example of the README, run as it is written there (see
// tooling/readme-examples). "Adding a scenario" imports as a file in
// src/scenarios/ does; the scenario it defines is then run at a tiny size.
await testReadme(new URL('../README.md', import.meta.url), {
  imports: { '../scenario.js': src('scenario.ts'), '../sizes.js': src('sizes.ts') },
  epilogues: {
    'run-tiny': `
      const { runScenario: readmeRun } = await import(${JSON.stringify(src('runner.ts'))});
      const { reportToJson: readmeJson } = await import(${JSON.stringify(src('report.ts'))});
      const { report } = await readmeRun(memCopy, {
        params: { bytes: 1 << 16 }, runs: 1, warmup: 0, dir: process.cwd(), cache: 'warm', log: () => {},
      });
      const json = JSON.parse(readmeJson(report));
      if (!(json.metrics.copy_mbps > 0)) throw new Error('mem-copy measured ' + JSON.stringify(json.metrics));
    `,
  },
  minExamples: 1,
});
