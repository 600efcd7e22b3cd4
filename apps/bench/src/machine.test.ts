import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { machineInfo } from './machine.js';

describe('machineInfo', () => {
  it('describes this machine', () => {
    const m = machineInfo();
    expect(m.hostname).toBe(os.hostname());
    expect(m.cpus).toBeGreaterThan(0);
    expect(m.node).toBe(process.version);
    expect(m.totalMemory).toBeGreaterThan(0);
    expect(m.platform).toBe(process.platform);
    expect(typeof m.cpuModel).toBe('string');
  });
});
