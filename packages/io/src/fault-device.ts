import { setTimeout as sleep } from 'node:timers/promises';
import type { Address, ByteCount } from './address.js';
import type { Device } from './device.js';
import { DeviceStatsRecorder, type DeviceStatsSnapshot, now } from './device-stats.js';
import {
  DeviceClosedError,
  InjectedFaultError,
  IoError,
  type StrataError,
  TornWriteError,
} from './errors.js';
import {
  type CompiledFault,
  checkLatency,
  compileFault,
  type FaultSpec,
  KIND_READ,
  KIND_SYNC,
  KIND_TRUNCATE,
  KIND_WRITE,
  type LatencySpec,
} from './fault-spec.js';
import { IoQueue } from './io-queue.js';
import { Prng } from './prng.js';
import { SegmentLayout } from './segment-layout.js';

export interface FaultDeviceOptions {
  /** Seed of the generator behind probabilities, random latency and random prefix lengths. Default 1. */
  seed?: number;
  /** Faults installed from the start. */
  faults?: readonly FaultSpec[];
  latency?: LatencySpec;
  /** In-flight bound of the wrapper (latency is spent holding a slot). Default: the wrapped device's. */
  maxInFlight?: number;
  /** Whether `close()` closes the wrapped device too. Default true. */
  closeInner?: boolean;
  /** Default `fault(<inner name>)`. */
  name?: string;
}

/** A fault installed on a {@link FaultDevice}, with its counters. */
export class InstalledFault {
  readonly spec: Readonly<FaultSpec>;
  /** Operations that matched the rule since it was added. */
  matched = 0;
  /** Times it fired. */
  fired = 0;
  /** @internal */
  readonly rule: CompiledFault;
  private readonly owner: FaultDevice;

  /** @internal */
  constructor(spec: FaultSpec, owner: FaultDevice) {
    this.spec = Object.freeze({ ...spec });
    this.rule = compileFault(spec);
    this.owner = owner;
  }

  /** Whether it can still fire. */
  get exhausted(): boolean {
    return this.fired >= this.rule.times;
  }

  remove(): void {
    this.owner.removeFault(this);
  }
}

/**
 * Wraps any device and injects failures, latency, short and torn writes and
 * bit flips, deterministically from a seed: the same sequence of calls with
 * the same seed fails the same way (every random choice is drawn when an
 * operation is called, in call order, never from IO timing).
 *
 * Faults can be added and removed at any time, e.g. to make a device fail
 * and then recover. Injected errors carry `code`, `address` (the operation's,
 * or the first faulty address of a range fault) and `segment`.
 *
 * Stats are the wrapper's own, as the caller sees them (injected latency
 * included, injected failures counted as errors); the wrapped device keeps
 * its own stats.
 */
export class FaultDevice implements Device {
  readonly name: string;
  readonly inner: Device;
  readonly maxInFlight: number;
  private readonly layout: SegmentLayout;
  private readonly recorder = new DeviceStatsRecorder();
  private readonly queue: IoQueue;
  private readonly prng: Prng;
  private readonly closeInner: boolean;
  private readonly installed: InstalledFault[] = [];
  private latencyMin = 0;
  private latencyMax = 0;
  private latencyMask = 0;
  private isClosed = false;
  private closing: Promise<void> | undefined;

  constructor(inner: Device, options: FaultDeviceOptions = {}) {
    this.inner = inner;
    this.name = options.name ?? `fault(${inner.name})`;
    this.layout = new SegmentLayout({
      segmentSize: inner.segmentSize,
      alignment: inner.alignment,
      maxInFlight: options.maxInFlight ?? inner.maxInFlight,
    });
    this.maxInFlight = this.layout.maxInFlight;
    this.queue = new IoQueue(this.maxInFlight, this.recorder);
    this.prng = new Prng(options.seed ?? 1);
    this.closeInner = options.closeInner ?? true;
    for (const spec of options.faults ?? []) this.addFault(spec);
    this.setLatency(options.latency);
  }

  get segmentSize(): ByteCount {
    return this.inner.segmentSize;
  }

  get alignment(): ByteCount {
    return this.inner.alignment;
  }

  get beginAddress(): Address {
    return this.inner.beginAddress;
  }

  get endAddress(): Address {
    return this.inner.endAddress;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Installed faults, oldest first. */
  get faults(): readonly InstalledFault[] {
    return this.installed;
  }

  addFault(spec: FaultSpec): InstalledFault {
    const fault = new InstalledFault(spec, this);
    this.installed.push(fault);
    return fault;
  }

  removeFault(fault: InstalledFault): void {
    const i = this.installed.indexOf(fault);
    if (i >= 0) this.installed.splice(i, 1);
  }

  clearFaults(): void {
    this.installed.length = 0;
  }

  /** Sets (or with `undefined`, removes) the added latency. */
  setLatency(spec: LatencySpec | undefined): void {
    if (spec === undefined) {
      this.latencyMask = 0;
      return;
    }
    const { min, max, mask } = checkLatency(spec);
    this.latencyMin = min;
    this.latencyMax = max;
    this.latencyMask = mask;
  }

  async read(address: Address, into: Uint8Array): Promise<ByteCount> {
    try {
      this.checkOpen();
      this.layout.checkIo(address, into.length);
      const fault = this.decide(KIND_READ, address, into.length);
      const delay = this.delayFor(KIND_READ);
      const flip = fault?.rule.effect === 'bit-flip' ? this.prng.next() : 0;
      const wait = this.queue.acquire();
      if (wait !== undefined) await wait;
      try {
        const start = now();
        if (delay > 0) await sleep(delay);
        if (fault?.rule.effect === 'error') throw this.injectedError(fault, 'read', address);
        const n = await this.inner.read(address, into);
        if (fault !== undefined && n > 0) {
          const bit = Math.floor(flip * n * 8);
          into[bit >>> 3]! ^= 1 << (bit & 7);
        }
        this.recorder.recordRead(start, n);
        return n;
      } finally {
        this.queue.release();
      }
    } catch (e) {
      this.recorder.recordError();
      throw e;
    }
  }

  async write(address: Address, from: Uint8Array): Promise<void> {
    try {
      this.checkOpen();
      const length = from.length;
      this.layout.checkIo(address, length);
      const fault = this.decide(KIND_WRITE, address, length);
      const delay = this.delayFor(KIND_WRITE);
      const effect = fault?.rule.effect;
      const partial = effect === 'short-write' || effect === 'torn-write';
      const persist = partial && fault !== undefined ? this.prefixLength(fault, length) : 0;
      const wait = this.queue.acquire();
      if (wait !== undefined) await wait;
      try {
        const start = now();
        if (delay > 0) await sleep(delay);
        if (fault !== undefined && effect === 'error') {
          throw this.injectedError(fault, 'write', address);
        }
        if (partial) {
          if (persist > 0) await this.inner.write(address, from.subarray(0, persist));
          if (effect === 'torn-write') {
            throw new TornWriteError(
              `${this.name}: torn write at ${address}: ${persist} of ${length} bytes persisted`,
              { address, segment: this.layout.segmentOf(address) },
              persist,
            );
          }
        } else {
          await this.inner.write(address, from);
        }
        this.recorder.recordWrite(start, length);
      } finally {
        this.queue.release();
      }
    } catch (e) {
      this.recorder.recordError();
      throw e;
    }
  }

  async sync(): Promise<void> {
    try {
      this.checkOpen();
      const fault = this.decide(KIND_SYNC, -1, 0);
      const delay = this.delayFor(KIND_SYNC);
      const wait = this.queue.acquire();
      if (wait !== undefined) await wait;
      try {
        const start = now();
        if (delay > 0) await sleep(delay);
        if (fault !== undefined) throw this.injectedError(fault, 'sync', undefined);
        await this.inner.sync();
        this.recorder.recordSync(start);
      } finally {
        this.queue.release();
      }
    } catch (e) {
      this.recorder.recordError();
      throw e;
    }
  }

  async truncateUntil(address: Address): Promise<void> {
    try {
      this.checkOpen();
      const fault = this.decide(KIND_TRUNCATE, -1, 0);
      const delay = this.delayFor(KIND_TRUNCATE);
      const wait = this.queue.acquire();
      if (wait !== undefined) await wait;
      try {
        if (delay > 0) await sleep(delay);
        if (fault !== undefined) throw this.injectedError(fault, 'truncate', address);
        await this.inner.truncateUntil(address);
      } finally {
        this.queue.release();
      }
    } catch (e) {
      this.recorder.recordError();
      throw e;
    }
  }

  close(): Promise<void> {
    if (this.closing === undefined) this.closing = this.shutdown();
    return this.closing;
  }

  stats(): DeviceStatsSnapshot {
    return this.recorder.snapshot();
  }

  resetStats(): void {
    this.recorder.reset();
  }

  private async shutdown(): Promise<void> {
    this.isClosed = true;
    this.queue.rejectWaiters(() => new DeviceClosedError(this.name));
    await this.queue.whenIdle();
    if (this.closeInner) await this.inner.close();
  }

  private checkOpen(): void {
    if (this.isClosed) throw new DeviceClosedError(this.name);
  }

  /** The fault that fires for this operation, if any; counts the operation on every matching rule. */
  private decide(kind: number, address: Address, length: ByteCount): InstalledFault | undefined {
    let chosen: InstalledFault | undefined;
    const faults = this.installed;
    for (let i = 0; i < faults.length; i++) {
      const fault = faults[i]!;
      const rule = fault.rule;
      if ((rule.mask & kind) === 0) continue;
      if (rule.hasRange) {
        if (address < 0) continue;
        const end = address + Math.max(length, 1);
        if (end <= rule.from || address >= rule.to) continue;
      }
      fault.matched++;
      if (chosen !== undefined || fault.matched < rule.nth || fault.fired >= rule.times) continue;
      if (rule.probability < 1 && this.prng.next() >= rule.probability) continue;
      fault.fired++;
      chosen = fault;
    }
    return chosen;
  }

  private delayFor(kind: number): number {
    if ((this.latencyMask & kind) === 0) return 0;
    if (this.latencyMax === this.latencyMin) return this.latencyMin;
    return this.latencyMin + this.prng.next() * (this.latencyMax - this.latencyMin);
  }

  private prefixLength(fault: InstalledFault, length: ByteCount): ByteCount {
    const alignment = this.layout.alignment;
    const units = Math.floor(length / alignment);
    if (units === 0) return 0;
    const wanted = fault.spec.persist;
    const chosen =
      wanted === undefined
        ? this.prng.nextInt(units)
        : Math.min(Math.floor(wanted / alignment), units - 1);
    return chosen * alignment;
  }

  private injectedError(
    fault: InstalledFault,
    op: string,
    address: Address | undefined,
  ): StrataError {
    const at =
      address !== undefined && fault.rule.hasRange ? Math.max(address, fault.rule.from) : address;
    const segment = at === undefined ? undefined : this.layout.segmentOf(at);
    const where = at === undefined ? '' : ` at ${at} (segment ${segment})`;
    const message = `${this.name}: injected ${op} failure${where}`;
    const code = fault.spec.code ?? 'ERR_INJECTED_FAULT';
    if (code === 'ERR_IO') {
      const osCode = fault.spec.osCode ?? 'EIO';
      return new IoError(`${message}: ${osCode}`, {
        osCode,
        address: at,
        segment,
        cause: new InjectedFaultError(message, { address: at, segment }),
      });
    }
    return new InjectedFaultError(message, { address: at, segment }, code);
  }
}
