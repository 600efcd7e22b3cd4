import os from 'node:os';

/** The machine a report was measured on, as in the JSON report's `machine`. */
export interface MachineInfo {
  /** Host name, to tell machines apart in a history of reports. */
  hostname: string;
  /** Logical CPUs. */
  cpus: number;
  cpuModel: string;
  /** Node version, e.g. `v20.19.0`. */
  node: string;
  /** Total memory in bytes. */
  totalMemory: number;
  platform: string;
  arch: string;
  /** Kernel release. */
  release: string;
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    hostname: os.hostname(),
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    node: process.version,
    totalMemory: os.totalmem(),
    platform: process.platform,
    arch: process.arch,
    release: os.release(),
  };
}
