import { testReadme } from '@strata/readme-examples';

// Every ```ts example of the README, run as it is written there (see
// tooling/readme-examples).
await testReadme(new URL('../README.md', import.meta.url), {
  preludes: {
    // "Page summaries": an open store with some keys.
    store: `
      import { Store as PreludeStore } from '@strata/hlog';
      const store = await PreludeStore.open({ dir: './data' });
      await store.set('user:1', 'ada');
    `,
  },
  epilogues: { 'close-store': 'await store.close();' },
  minExamples: 3,
});
