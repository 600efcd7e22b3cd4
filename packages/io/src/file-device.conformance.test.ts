import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { FileDevice } from './file-device.js';
import { runDeviceConformance } from './testing/index.js';

let dir = '';

runDeviceConformance({ describe, it }, 'FileDevice conformance', {
  async create(geometry) {
    dir = await mkdtemp(join(tmpdir(), 'strata-io-conformance-'));
    return new FileDevice({ dir, name: 'log', ...geometry });
  },
  async reopen(geometry) {
    return new FileDevice({ dir, name: 'log', ...geometry });
  },
  async destroy() {
    await rm(dir, { recursive: true, force: true });
  },
});
