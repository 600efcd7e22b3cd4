import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const DROP_CACHES_PATH = '/proc/sys/vm/drop_caches';

/** Whether this process may drop the page cache: root on Linux. */
export function canDropPageCache(): boolean {
  return process.platform === 'linux' && process.getuid?.() === 0;
}

/**
 * Writes dirty pages back (`sync`), then asks Linux to drop the page cache,
 * dentries and inodes (`3 > /proc/sys/vm/drop_caches`), so that the next
 * read comes from the device. Resolves false, without throwing, when that
 * is not possible (not root, not Linux, a read-only /proc in a container).
 */
export async function dropPageCache(): Promise<boolean> {
  if (!canDropPageCache()) return false;
  try {
    await execFileAsync('sync');
  } catch {
    // No sync binary: drop_caches still drops every clean page.
  }
  try {
    await writeFile(DROP_CACHES_PATH, '3');
    return true;
  } catch {
    return false;
  }
}
