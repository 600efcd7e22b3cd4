import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidArgumentError } from './errors.js';

const SEGMENT_SUFFIX = /^(0|[1-9][0-9]*)$/;

/** Checks a device name is usable as a file name prefix. */
export function checkSegmentFileName(name: string): void {
  if (name.length === 0 || name === '.' || name === '..' || /[/\\\0]/.test(name)) {
    throw new InvalidArgumentError(
      `device name must be a plain file name, got ${JSON.stringify(name)}`,
    );
  }
}

/** `<dir>/<name>.<segment>` */
export function segmentFilePath(dir: string, name: string, segment: number): string {
  return join(dir, `${name}.${segment}`);
}

/**
 * The segment files of device `name` in `dir`: segment number -> file size.
 * A missing directory has none. Runs synchronously (once, when a device is
 * constructed): one readdir and one stat per segment file.
 */
export function scanSegmentFiles(dir: string, name: string): Map<number, number> {
  const found = new Map<number, number>();
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (e) {
    if (e instanceof Error && 'code' in e && e.code === 'ENOENT') return found;
    throw e;
  }
  const prefix = `${name}.`;
  for (const entry of entries) {
    if (!entry.startsWith(prefix)) continue;
    const suffix = entry.slice(prefix.length);
    if (!SEGMENT_SUFFIX.test(suffix)) continue;
    const segment = Number(suffix);
    if (!Number.isSafeInteger(segment)) continue;
    const stat = statSync(join(dir, entry));
    if (stat.isFile()) found.set(segment, stat.size);
  }
  return found;
}
