import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

/**
 * The child writer (crash-child.mjs: the built package, as a user's
 * program runs it) for the crash tests: started in a mode, killed with
 * SIGKILL; the children and temporary directories of a test file are
 * cleaned up after each of its tests.
 */
const child = fileURLToPath(new URL('../crash-child.mjs', import.meta.url));
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** Starts the child writer; resolves once it printed `line`, with the process. */
export function runUntil(mode: string, dir: string, line: string): Promise<ChildProcess> {
  const p = spawn(process.execPath, [child, mode, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(p);
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    p.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.split('\n').includes(line)) resolve(p);
    });
    p.stderr!.on('data', (b: Buffer) => {
      err += b.toString();
    });
    p.once('exit', (code) =>
      reject(new Error(`child exited ${code} before '${line}': ${out}${err}`)),
    );
  });
}

/** Kills the child (SIGKILL); resolves once it exited. */
export function killed(p: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    p.once('exit', () => resolve());
    p.kill('SIGKILL');
  });
}

/** A temporary directory, removed after the test. */
export async function tempDir(prefix = 'strata-crash-'): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}
