// A throwaway redis-server for tests that compare with Redis: one place
// that knows how to find the binary, pick a loopback port and start it with
// nothing persisted, so every package's differential tests start it alike.
import { spawn, spawnSync } from 'node:child_process';
import { connect, createServer } from 'node:net';

/** Whether the `redis-server` binary is installed (the live halves run only then). */
export function hasRedisServer() {
  return spawnSync('redis-server', ['--version']).status === 0;
}

/** A free TCP port on 127.0.0.1 (the OS's pick, released before it is used). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      const port = typeof a === 'object' && a !== null ? a.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts connections on 127.0.0.1:`port`; rejects after `timeoutMs`. */
export async function waitForPort(port, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await new Promise((resolve, reject) => {
        const s = connect(port, '127.0.0.1', () => {
          s.destroy();
          resolve();
        });
        s.once('error', reject);
      });
      return;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/**
 * Starts redis-server on a free loopback port with no RDB snapshots and no
 * AOF (files, if any, in `options.dir`); `args` are more command-line
 * options, e.g. `--enable-debug-command local`. Resolves once it accepts
 * connections.
 */
export async function startRedis(args = [], options = {}) {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      ...(options.dir === undefined ? [] : ['--dir', options.dir]),
      ...args,
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await waitForPort(port, options.timeoutMs ?? 5000);
  } catch (e) {
    child.kill();
    throw e;
  }
  return {
    port,
    process: child,
    exited,
    stop() {
      child.kill();
    },
  };
}
