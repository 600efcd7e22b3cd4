import { spawn } from 'node:child_process';

/** Set in the environment of the copy that runs in the background. */
const DAEMON_ENV = 'STRATA_SERVER_DAEMON';

/** Whether this process is the background copy (it must not daemonize again). */
export function isDaemon(): boolean {
  return process.env[DAEMON_ENV] === '1' && typeof process.send === 'function';
}

/**
 * `daemonize yes`. Node cannot fork, so the parent starts a copy of itself
 * with the same arguments in the same working directory, detached (its
 * own session, as Redis's setsid) with standard input and output on
 * /dev/null, and waits until it is ready (listening, pidfile written) or
 * gone. Resolves with the parent's exit code: 0 once it is ready, 1 if it
 * stopped during start-up (its log says why). Redis's parent exits at
 * once; this one waits, so a start script sees a failure.
 */
export function daemonize(argv: readonly string[]): Promise<number> {
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, ...argv], {
    detached: true,
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    env: { ...process.env, [DAEMON_ENV]: '1' },
  });
  return new Promise((resolve) => {
    child.once('message', () => {
      child.disconnect();
      child.unref();
      resolve(0);
    });
    child.once('exit', (code, signal) => {
      process.stderr.write(
        `strata-server: the background server stopped during start-up (${signal ?? `exit code ${code}`}); its log says why\n`,
      );
      resolve(1);
    });
    child.once('error', (e) => {
      process.stderr.write(`strata-server: could not start in the background: ${e.message}\n`);
      resolve(1);
    });
  });
}

/** In the background copy: tells the parent the server is ready, and lets it go. */
export function daemonReady(): void {
  delete process.env[DAEMON_ENV];
  process.send?.('ready');
  process.disconnect?.();
}
