export type { Address, ByteCount } from './address.js';
export { isPowerOfTwo, MAX_ADDRESS } from './address.js';
export type { Device, DeviceOptions } from './device.js';
export { DEFAULT_MAX_IN_FLIGHT, DEFAULT_SEGMENT_SIZE } from './device.js';
export {
  DeviceStatsRecorder,
  type DeviceStatsSnapshot,
  type LatencySummary,
  now,
} from './device-stats.js';
export { DirLock, DirLockedError, type DirLockOptions, processStart } from './dir-lock.js';
export {
  type AnyStrataError,
  DeviceClosedError,
  InjectedFaultError,
  InvalidArgumentError,
  IoError,
  isStrataError,
  OutOfRangeError,
  StrataError,
  type StrataErrorCode,
  type StrataErrorDetails,
  TornWriteError,
} from './errors.js';
export { FaultDevice, type FaultDeviceOptions, InstalledFault } from './fault-device.js';
export type { FaultEffect, FaultSpec, IoKind, LatencySpec } from './fault-spec.js';
export { FileDevice, type FileDeviceOptions } from './file-device.js';
export { INT64_MAX, INT64_MAX_DOUBLE, INT64_MIN } from './int64.js';
export { IoQueue, type IoQueueObserver } from './io-queue.js';
export { LatencyHistogram } from './latency-histogram.js';
export { DEFAULT_CHUNK_SIZE, MemoryDevice, type MemoryDeviceOptions } from './memory-device.js';
export { MemoryVolume } from './memory-volume.js';
export { NullDevice, type NullDeviceOptions } from './null-device.js';
export { Prng } from './prng.js';
export { scanSegmentFiles } from './segment-files.js';
export { SegmentLayout } from './segment-layout.js';
export { SegmentedDevice } from './segmented-device.js';
