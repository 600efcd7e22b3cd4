/**
 * Redis's `appendfsync`:
 * - `always`: a write's reply waits until its bytes are synced (group commit:
 *   every command appended while a sync runs rides the next one)
 * - `everysec`: written at once, synced in the background once a second
 * - `no`: written at once, synced when the OS decides
 */
export type FsyncPolicy = 'always' | 'everysec' | 'no';

export const FSYNC_POLICIES: readonly FsyncPolicy[] = ['always', 'everysec', 'no'];

export function isFsyncPolicy(s: string): s is FsyncPolicy {
  return (FSYNC_POLICIES as readonly string[]).includes(s);
}
