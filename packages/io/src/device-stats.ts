import { performance } from 'node:perf_hooks';
import type { IoQueueObserver } from './io-queue.js';
import { LatencyHistogram, type LatencySummary } from './latency-histogram.js';

export type { LatencySummary };

/** A point-in-time copy of a device's counters. */
export interface DeviceStatsSnapshot {
  /** Reads completed successfully. */
  reads: number;
  /** Writes completed successfully. */
  writes: number;
  /** Syncs completed successfully. */
  syncs: number;
  bytesRead: number;
  bytesWritten: number;
  /** Operations currently issued to the backing store. */
  inFlight: number;
  /** Highest `inFlight` seen since the last reset. */
  inFlightHighWater: number;
  /** Operations waiting for an in-flight slot now. */
  queued: number;
  /** Operations that rejected, for any reason. */
  errors: number;
  /** Service time of successful reads (from issue to completion, not counting the queue wait). */
  readLatencyUs: LatencySummary;
  writeLatencyUs: LatencySummary;
  syncLatencyUs: LatencySummary;
}

/** Milliseconds from a monotonic clock, with sub-microsecond resolution. */
export function now(): number {
  return performance.now();
}

/**
 * The counters behind `Device.stats()`. Devices call the `record*` methods on
 * completion; the in-flight queue drives the in-flight and queued gauges
 * through {@link IoQueueObserver}. Recording allocates nothing.
 */
export class DeviceStatsRecorder implements IoQueueObserver {
  reads = 0;
  writes = 0;
  syncs = 0;
  bytesRead = 0;
  bytesWritten = 0;
  errors = 0;
  inFlight = 0;
  inFlightHighWater = 0;
  queued = 0;
  readonly readLatency = new LatencyHistogram();
  readonly writeLatency = new LatencyHistogram();
  readonly syncLatency = new LatencyHistogram();

  /** A successful read of `bytes` bytes issued at `startMs` (from {@link now}). */
  recordRead(startMs: number, bytes: number): void {
    this.reads++;
    this.bytesRead += bytes;
    this.readLatency.recordSince(startMs, now());
  }

  recordWrite(startMs: number, bytes: number): void {
    this.writes++;
    this.bytesWritten += bytes;
    this.writeLatency.recordSince(startMs, now());
  }

  recordSync(startMs: number): void {
    this.syncs++;
    this.syncLatency.recordSince(startMs, now());
  }

  recordError(): void {
    this.errors++;
  }

  onIssue(): void {
    this.inFlight++;
    if (this.inFlight > this.inFlightHighWater) this.inFlightHighWater = this.inFlight;
  }

  onFinish(): void {
    this.inFlight--;
  }

  onEnqueue(): void {
    this.queued++;
  }

  onDequeue(): void {
    this.queued--;
  }

  snapshot(): DeviceStatsSnapshot {
    return {
      reads: this.reads,
      writes: this.writes,
      syncs: this.syncs,
      bytesRead: this.bytesRead,
      bytesWritten: this.bytesWritten,
      inFlight: this.inFlight,
      inFlightHighWater: this.inFlightHighWater,
      queued: this.queued,
      errors: this.errors,
      readLatencyUs: this.readLatency.summary(),
      writeLatencyUs: this.writeLatency.summary(),
      syncLatencyUs: this.syncLatency.summary(),
    };
  }

  /** Zeroes counters and latencies; the gauges (`inFlight`, `queued`) keep their live values. */
  reset(): void {
    this.reads = 0;
    this.writes = 0;
    this.syncs = 0;
    this.bytesRead = 0;
    this.bytesWritten = 0;
    this.errors = 0;
    this.inFlightHighWater = this.inFlight;
    this.readLatency.reset();
    this.writeLatency.reset();
    this.syncLatency.reset();
  }
}
