import { appendFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { strerror } from './system-error.js';

/**
 * Whether the log file can be appended to (created if missing): null, or
 * the reason (`Permission denied`). '' is standard output: always.
 */
export async function checkLogFile(path: string): Promise<string | null> {
  if (path === '') return null;
  try {
    await (await open(path, 'a')).close();
    return null;
  } catch (e) {
    return strerror(e);
  }
}

/**
 * Where log lines go: standard output for '', else appended to the file,
 * opened for each line as Redis does (so a log rotated away is recreated),
 * synchronously (a line logged just before exit is not lost). A line that
 * cannot be written is dropped, as in Redis.
 */
export function logWriter(path: string): (line: string) => void {
  if (path === '') return (line) => process.stdout.write(line);
  return (line) => {
    try {
      appendFileSync(path, line);
    } catch {
      // Nowhere left to say so.
    }
  };
}
