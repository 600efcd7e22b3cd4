import { fileURLToPath } from 'node:url';
import { testReadme } from '@strata/readme-examples';

// Every ```ts example of the README, run as it is written there (see
// tooling/readme-examples).
await testReadme(new URL('../README.md', import.meta.url), {
  imports: {
    '@strata/hlog': fileURLToPath(new URL('../src/index.ts', import.meta.url)),
  },
  preludes: {
    // "Record types": an open store, a key and some serialized bytes.
    store: `
      import { RecordType, Store as PreludeStore } from '@strata/hlog';
      const store = await PreludeStore.open({ dir: './data', pageSize: 4096, memory: 16 * 4096 });
      const key = Buffer.from('h');
      const bytes = Buffer.from('a serialized hash');
    `,
    // "Reading raw records": a store whose 300 keys are on the device, in sealed pages.
    'store-on-device': `
      import { MemoryDevice as PreludeDevice } from '@strata/io';
      import { MemoryCheckpointStore as PreludeCheckpoints, Store as PreludeStore } from '@strata/hlog';
      const store = await PreludeStore.open({
        device: new PreludeDevice(),
        checkpoints: new PreludeCheckpoints(),
        pageSize: 4096,
        memory: 4 * 4096,
      });
      for (let i = 0; i < 300; i++) await store.set(Buffer.from('k' + i), Buffer.from('v'));
      await store.checkpoint();
    `,
  },
  epilogues: { 'close-store': 'await store.close();' },
  minExamples: 3,
});
