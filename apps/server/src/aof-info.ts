import type { AppendOnlyFile } from '@strata/aof';
import type { RespServerOptions } from '@strata/resp';
import type { AofLoaded } from '@strata/store';
import type { AofRewrite } from './aof-rewrite.js';
import type { ServerConfig } from './config.js';

/**
 * INFO persistence's aof_* fields, in Redis 7's names and order. The
 * rewrite fields are BGREWRITEAOF's (aof-rewrite.ts: a checkpoint of every
 * database and a cut); aof_last_write_status is err while a write or fsync
 * of the file fails; aof_base_size is the size after loading, after the
 * last cut or after the last rewrite (what the automatic rewrite measures
 * growth from). `aof` is null with appendonly no (or before the file is open).
 */
export function aofInfoLines(
  aof: AppendOnlyFile | null,
  rewrite: AofRewrite,
  loaded: AofLoaded | null = null,
  /** appendonly as last set: Redis's aof_enabled is 1 from CONFIG SET appendonly yes on, before its rewrite ends. */
  enabled = aof !== null,
): string[] {
  // Turned off (CONFIG SET), the AOF is not written any more while the switch closes it.
  const info = enabled ? aof?.info() : undefined;
  const lines = [
    `aof_enabled:${enabled ? 1 : 0}`,
    ...rewrite.infoLines(),
    `aof_last_write_status:${info?.lastWriteStatus ?? 'ok'}`,
    // No fork: nothing is ever copied on write.
    'aof_last_cow_size:0',
    'module_fork_in_progress:0',
    'module_fork_last_cow_size:0',
  ];
  if (info === undefined || aof === null) return lines;
  lines.push(
    `aof_current_size:${info.totalSize}`,
    `aof_base_size:${rewrite.baseSize(aof)}`,
    'aof_pending_rewrite:0',
    `aof_buffer_length:${info.pendingBytes}`,
    'aof_pending_bio_fsync:0',
    'aof_delayed_fsync:0',
    // Strata's own: how group commit is doing, and the checkpoint cuts.
    `aof_files:${info.files.length}`,
    `aof_writes:${info.writes}`,
    `aof_fsyncs:${info.syncs}`,
    `aof_cuts:${info.cuts}`,
    // What the replay at start applied, what it skipped (in a checkpoint or
    // read from the log), and the databases it resumed at a commit point.
    `aof_loaded_commands:${loaded?.applied ?? 0}`,
    `aof_loaded_skipped:${loaded?.skipped ?? 0}`,
    `aof_loaded_from_commit:${loaded?.resumed.join(',') ?? ''}`,
  );
  return lines;
}

/**
 * CONFIG GET's values for the AOF settings set at start (appendonly and
 * appendfsync change live: live-parameters.ts).
 */
export function aofConfigValues(config: ServerConfig): RespServerOptions['configValues'] {
  return {
    appendfilename: () => config.appendfilename,
    appenddirname: () => config.appenddirname,
  };
}
