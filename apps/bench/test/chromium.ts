// Headless Chromium for the report page's browser test: found on PATH (the
// Debian package's `chromium`, or CHROMIUM_BIN), driven through its own
// command line (--dump-dom, --screenshot), no driver library.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { which } from '../src/scenarios/server-harness.js';

const execFileAsync = promisify(execFile);

const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** The Chromium binary to use, or null when there is none. */
export function findChromium(): string | null {
  const configured = process.env.CHROMIUM_BIN;
  if (configured) return configured;
  for (const name of NAMES) {
    const found = which(name);
    if (found) return found;
  }
  return null;
}

/**
 * Runs headless Chromium on a local page with the network shut (every host
 * resolves to nothing: the page must be self-contained), a throwaway
 * profile, and virtual time so that the page's scripts have run.
 */
async function headless(bin: string, page: string, extra: readonly string[]): Promise<string> {
  const profile = await mkdtemp(path.join(os.tmpdir(), 'strata-bench-chromium-'));
  try {
    const { stdout } = await execFileAsync(
      bin,
      [
        '--headless',
        '--no-sandbox', // root in CI containers
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--no-first-run',
        '--hide-scrollbars',
        '--host-resolver-rules=MAP * ~NOTFOUND',
        `--user-data-dir=${profile}`,
        '--virtual-time-budget=10000',
        ...extra,
        pathToFileURL(page).href,
      ],
      { maxBuffer: 64 << 20, timeout: 120_000 },
    );
    return stdout;
  } finally {
    await rm(profile, { recursive: true, force: true });
  }
}

/** The page's DOM after its scripts ran. */
export function dumpDom(bin: string, page: string, width: number): Promise<string> {
  return headless(bin, page, [`--window-size=${width},1000`, '--dump-dom']);
}

/** A PNG of the page's first `height` CSS pixels. */
export async function screenshot(
  bin: string,
  page: string,
  png: string,
  width: number,
  height: number,
): Promise<void> {
  await headless(bin, page, [`--window-size=${width},${height}`, `--screenshot=${png}`]);
}
