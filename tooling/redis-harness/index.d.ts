import type { ChildProcess } from 'node:child_process';

/** Whether the `redis-server` binary is installed (the live halves run only then). */
export function hasRedisServer(): boolean;

/** A free TCP port on 127.0.0.1 (the OS's pick, released before it is used). */
export function freePort(): Promise<number>;

/** Resolves once something accepts connections on 127.0.0.1:`port`; rejects after `timeoutMs` (5000). */
export function waitForPort(port: number, timeoutMs?: number): Promise<void>;

export interface StartRedisOptions {
  /** `--dir`: where the server keeps its files (default: its working directory). */
  readonly dir?: string;
  /** How long to wait for it to accept connections (default 5000 ms). */
  readonly timeoutMs?: number;
}

export interface RedisProcess {
  readonly port: number;
  readonly process: ChildProcess;
  /** Settles when the process has exited. */
  readonly exited: Promise<unknown>;
  /** Sends SIGTERM. */
  stop(): void;
}

/**
 * Starts redis-server on a free loopback port with no RDB snapshots and no
 * AOF; `args` are more command-line options. Resolves once it accepts
 * connections.
 */
export function startRedis(
  args?: readonly string[],
  options?: StartRedisOptions,
): Promise<RedisProcess>;
