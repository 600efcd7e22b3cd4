import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The git commit of the bench's sources, as in the JSON report's `commit`. */
export interface SourceCommit {
  /** `git rev-parse HEAD`. */
  sha: string;
  /** Tracked files differ from that commit (`git status --porcelain`): the numbers are of changed code. */
  dirty: boolean;
}

/**
 * The commit the running bench was built from: git asked in the bench's own
 * directory, not the working directory, so a run from elsewhere still names
 * the right commit. Null when git or the repository is missing (a copied
 * build).
 */
export async function sourceCommit(
  dir = path.dirname(fileURLToPath(import.meta.url)),
): Promise<SourceCommit | null> {
  try {
    const { stdout: sha } = await execFileAsync('git', ['rev-parse', 'HEAD'], { cwd: dir });
    const { stdout: status } = await execFileAsync(
      'git',
      ['status', '--porcelain', '--untracked-files=no'],
      { cwd: dir },
    );
    return { sha: sha.trim(), dirty: status.trim().length > 0 };
  } catch {
    return null;
  }
}

let benchCommitOnce: Promise<SourceCommit | null> | undefined;

/** `sourceCommit()` of the bench, asked of git once per process (every scenario records it). */
export function benchCommit(): Promise<SourceCommit | null> {
  benchCommitOnce ??= sourceCommit();
  return benchCommitOnce;
}
