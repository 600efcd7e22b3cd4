import { Fifo } from './fifo.js';

/** Receives the queue's gauge changes (a device's stats recorder). */
export interface IoQueueObserver {
  onIssue(): void;
  onFinish(): void;
  onEnqueue(): void;
  onDequeue(): void;
}

interface Waiter {
  weight: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * Bounds the operations a device has in flight. An operation takes a slot
 * before it touches the backing store and gives it back when done; when all
 * `capacity` slots are taken it waits, first come first served. Nothing ever
 * fails for being busy. An exclusive operation (truncation) takes every slot:
 * it waits for the operations ahead of it and holds back those behind it.
 *
 * The fast path (a free slot, nobody waiting) is synchronous and allocates
 * nothing: `acquire()` returns `undefined`.
 */
export class IoQueue {
  readonly capacity: number;
  private used = 0;
  private active = 0;
  private readonly waiters = new Fifo<Waiter>();
  private idleWaiters: (() => void)[] = [];
  private readonly observer: IoQueueObserver | undefined;

  constructor(capacity: number, observer?: IoQueueObserver) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
    this.observer = observer;
  }

  /** Operations holding a slot now (an exclusive operation counts once). */
  get inFlight(): number {
    return this.active;
  }

  /** Operations waiting for a slot. */
  get queued(): number {
    return this.waiters.length;
  }

  /**
   * Takes one slot. Returns `undefined` when the slot was free (the caller
   * holds it now), or a promise that resolves once the slot is handed over,
   * or rejects if {@link rejectWaiters} runs first. Pair with {@link release}.
   */
  acquire(): Promise<void> | undefined {
    if (this.used < this.capacity && this.waiters.length === 0) {
      this.used++;
      this.issue();
      return undefined;
    }
    return this.enqueue(1);
  }

  /** Takes every slot, in turn with the others. Pair with {@link releaseExclusive}. */
  acquireExclusive(): Promise<void> | undefined {
    if (this.used === 0 && this.waiters.length === 0) {
      this.used = this.capacity;
      this.issue();
      return undefined;
    }
    return this.enqueue(this.capacity);
  }

  release(): void {
    this.finish(1);
  }

  releaseExclusive(): void {
    this.finish(this.capacity);
  }

  /** Rejects every waiting operation (they never got a slot). In-flight ones are unaffected. */
  rejectWaiters(makeError: () => Error): void {
    for (let w = this.waiters.shift(); w !== undefined; w = this.waiters.shift()) {
      this.observer?.onDequeue();
      w.reject(makeError());
    }
  }

  /** Resolves when no operation holds a slot. */
  whenIdle(): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private enqueue(weight: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ weight, resolve, reject });
      this.observer?.onEnqueue();
    });
  }

  private issue(): void {
    this.active++;
    this.observer?.onIssue();
  }

  private finish(weight: number): void {
    this.used -= weight;
    this.active--;
    this.observer?.onFinish();
    for (let w = this.waiters.peek(); w !== undefined; w = this.waiters.peek()) {
      if (this.used + w.weight > this.capacity) break;
      this.waiters.shift();
      this.used += w.weight;
      this.observer?.onDequeue();
      this.issue();
      w.resolve();
    }
    if (this.active === 0 && this.idleWaiters.length > 0) {
      const idle = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of idle) resolve();
    }
  }
}
