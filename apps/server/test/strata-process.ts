import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const running = new Set<ChildProcess>();

/** strata-server as a child process, with its output collected. */
export class StrataProcess {
  /** Kills every server a test left running (a failed assertion before its stop). */
  static killAll(): void {
    for (const child of running) child.kill('SIGKILL');
    running.clear();
  }

  stdout = '';
  stderr = '';
  readonly exited: Promise<Exit>;
  private readonly listeners = new Set<() => void>();

  private constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      this.stdout += d;
      for (const l of this.listeners) l();
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      this.stderr += d;
      for (const l of this.listeners) l();
    });
    running.add(child);
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        running.delete(child);
        // Let the pipes drain: the last lines come just before the exit.
        setImmediate(() => resolve({ code, signal }));
        for (const l of this.listeners) l();
      });
    });
  }

  /** Starts `strata-server args...` (the build of the current sources). */
  static spawn(args: readonly string[], options: { cwd?: string } = {}): StrataProcess {
    const cli = inject('strataServerCli');
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new StrataProcess(child);
  }

  /**
   * Starts a server and resolves with its port, from the ready line. The
   * wait is long: a restart replays its AOF first, which a crash test grows
   * cycle after cycle, on a machine that may be running other suites.
   */
  static async start(args: readonly string[], options: { cwd?: string } = {}) {
    const p = StrataProcess.spawn(args, options);
    const m = await p.waitFor(/Ready to accept connections tcp on .*:(\d+)\n/, READY_TIMEOUT_MS);
    return { process: p, port: Number(m[1]) };
  }

  /**
   * Resolves when stdout (from character `from` on) matches; rejects on exit
   * or after `timeoutMs`.
   */
  waitFor(pattern: RegExp, timeoutMs = 20_000, from = 0): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const m = pattern.exec(from === 0 ? this.stdout : this.stdout.slice(from));
        if (m !== null) {
          done();
          resolve(m);
        } else if (this.child.exitCode !== null || this.child.signalCode !== null) {
          done();
          reject(new Error(`exited before ${pattern}:\n${this.stdout}${this.stderr}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out waiting for ${pattern}:\n${this.stdout}${this.stderr}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      this.listeners.add(check);
      check();
    });
  }

  /** Sends `signal` and waits for the exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<Exit> {
    this.child.kill(signal);
    return this.exited;
  }
}

/** Runs strata-server to its exit (--help, bad configurations). */
export async function runCli(
  args: readonly string[],
  options: { cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = StrataProcess.spawn(args, options);
  const { code } = await p.exited;
  return { code, stdout: p.stdout, stderr: p.stderr };
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Resolves once something accepts connections on `port` (127.0.0.1). */
/** How long a start may take before the test fails. */
const READY_TIMEOUT_MS = 90_000;

export async function waitForPort(port: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A temporary directory, removed by the returned function. */
export async function tempDir(prefix = 'strata-server-'): Promise<{
  path: string;
  remove(): Promise<void>;
}> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/**
 * A temporary directory for a whole test file: made before its tests,
 * removed after them once every process they started is killed. Read
 * `path` inside tests.
 */
export function dirForFile(prefix: string): { readonly path: string } {
  let dir: { path: string; remove(): Promise<void> } | null = null;
  beforeAll(async () => {
    dir = await tempDir(prefix);
  });
  afterAll(async () => {
    StrataProcess.killAll();
    await dir?.remove();
  });
  return {
    get path() {
      if (dir === null) throw new Error('the directory is made in beforeAll');
      return dir.path;
    },
  };
}

/**
 * A strata-server process for a whole test file, in a directory of its
 * own: started before the file's tests on a free port, killed (SIGKILL)
 * after them. Read `port` inside tests.
 */
export function serverForFile(): { readonly port: number } {
  let server: { process: StrataProcess; port: number } | null = null;
  let dir: { path: string; remove(): Promise<void> } | null = null;
  beforeAll(async () => {
    dir = await tempDir();
    server = await StrataProcess.start(['--port', '0', '--dir', dir.path]);
  });
  afterAll(async () => {
    server?.process.child.kill('SIGKILL');
    await server?.process.exited;
    await dir?.remove();
  });
  return {
    get port() {
      if (server === null) throw new Error('the server starts in beforeAll');
      return server.port;
    },
  };
}
