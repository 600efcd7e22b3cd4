/** Latency of completed operations in microseconds. */
export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** A point-in-time copy of a device's counters. */
export interface DeviceStatsSnapshot {
  reads: number;
  writes: number;
  syncs: number;
  bytesRead: number;
  bytesWritten: number;
  /** Operations currently issued to the backing store. */
  inFlight: number;
  /** Highest `inFlight` seen since the last reset. */
  inFlightHighWater: number;
  /** Operations waiting for an in-flight slot now. */
  queued: number;
  errors: number;
  readLatencyUs: LatencySummary;
  writeLatencyUs: LatencySummary;
}
