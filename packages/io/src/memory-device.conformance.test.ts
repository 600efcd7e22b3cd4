import { describe, it } from 'vitest';
import { MemoryDevice } from './memory-device.js';
import { MemoryVolume } from './memory-volume.js';
import { runDeviceConformance } from './testing/index.js';

let volume = new MemoryVolume();

runDeviceConformance({ describe, it }, 'MemoryDevice conformance', {
  async create(geometry) {
    volume = new MemoryVolume();
    return new MemoryDevice({ ...geometry, volume });
  },
  async reopen(geometry) {
    return new MemoryDevice({ ...geometry, volume });
  },
  async destroy() {
    volume.clear();
  },
});

// Chunks smaller than a segment, so IO crosses chunks inside segments too.
runDeviceConformance({ describe, it }, 'MemoryDevice conformance (512-byte chunks, no reopen)', {
  create: async (geometry) => new MemoryDevice({ ...geometry, chunkSize: 512 }),
});
