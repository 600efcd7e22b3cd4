import type { ServerState } from './server-state.js';

/** How often idle clients are looked for: Redis's clientsCron visits every client about once a second. */
const SWEEP_MS = 1000;

/**
 * Redis's `timeout`: a client idle for longer than `config.idleTimeout`
 * seconds is closed. As Redis's clientsCronHandleTimeout, clients in the
 * pub/sub context, MONITORs and clients waiting on a command (blocked,
 * paused, reading from disk) are never closed for idleness: they are idle
 * by design.
 */
export class IdleClients {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly state: ServerState) {}

  start(): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => this.sweep(Date.now()), SWEEP_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** Closes every client idle past the timeout at `now` (ms); how many were closed. */
  sweep(now: number): number {
    const seconds = this.state.config.idleTimeout;
    if (seconds <= 0) return 0;
    const limit = seconds * 1000;
    let closed = 0;
    for (const c of this.state.clients.values()) {
      if (now - c.lastInteraction <= limit) continue;
      if (c.subscribed || c.waitingOnCommand || this.state.monitors.includes(c)) continue;
      c.kill();
      closed++;
    }
    return closed;
  }
}
