import { describe, it } from 'vitest';
import { FaultDevice } from './fault-device.js';
import { MemoryDevice } from './memory-device.js';
import { MemoryVolume } from './memory-volume.js';
import { runDeviceConformance } from './testing/index.js';

let volume = new MemoryVolume();

runDeviceConformance({ describe, it }, 'FaultDevice (no faults) over MemoryDevice conformance', {
  async create(geometry) {
    volume = new MemoryVolume();
    return new FaultDevice(new MemoryDevice({ ...geometry, volume }), { seed: 7 });
  },
  async reopen(geometry) {
    return new FaultDevice(new MemoryDevice({ ...geometry, volume }), { seed: 7 });
  },
  async destroy() {
    volume.clear();
  },
});
