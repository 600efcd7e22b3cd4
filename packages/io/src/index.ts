export type { Address, ByteCount } from './address.js';
export { MAX_ADDRESS } from './address.js';
export type { Device, DeviceOptions } from './device.js';
export { DEFAULT_MAX_IN_FLIGHT, DEFAULT_SEGMENT_SIZE } from './device.js';
export type { DeviceStatsSnapshot, LatencySummary } from './device-stats.js';
export {
  DeviceClosedError,
  InjectedFaultError,
  InvalidArgumentError,
  IoError,
  isStrataError,
  OutOfRangeError,
  StrataError,
  type StrataErrorCode,
  type StrataErrorDetails,
} from './errors.js';
