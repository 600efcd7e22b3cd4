import type { AppendOnlyFile } from '@strata/aof';
import type { RespServerOptions } from '@strata/resp';
import type { ServerConfig } from './config.js';

/**
 * INFO persistence's aof_* fields, in Redis 7's names and order. Strata has
 * no rewrite (checkpoints cut the file instead): the rewrite fields are
 * Redis's values for a server that never rewrote (so
 * aof_last_bgrewrite_status is truthfully ok); aof_last_write_status is err
 * while a write or fsync of the file fails; aof_base_size is the size
 * after loading or after the last cut. `aof` is null with appendonly no (or
 * before the file is open).
 */
export function aofInfoLines(aof: AppendOnlyFile | null): string[] {
  const info = aof?.info();
  const lines = [
    `aof_enabled:${aof === null ? 0 : 1}`,
    'aof_rewrite_in_progress:0',
    'aof_rewrite_scheduled:0',
    'aof_last_rewrite_time_sec:-1',
    'aof_current_rewrite_time_sec:-1',
    'aof_last_bgrewrite_status:ok',
    'aof_rewrites:0',
    'aof_rewrites_consecutive_failures:0',
    `aof_last_write_status:${info?.lastWriteStatus ?? 'ok'}`,
    // No fork: nothing is ever copied on write.
    'aof_last_cow_size:0',
    'module_fork_in_progress:0',
    'module_fork_last_cow_size:0',
  ];
  if (info === undefined) return lines;
  lines.push(
    `aof_current_size:${info.totalSize}`,
    `aof_base_size:${info.baseSize}`,
    'aof_pending_rewrite:0',
    `aof_buffer_length:${info.pendingBytes}`,
    'aof_pending_bio_fsync:0',
    'aof_delayed_fsync:0',
    // Strata's own: how group commit is doing, and the checkpoint cuts.
    `aof_files:${info.files.length}`,
    `aof_writes:${info.writes}`,
    `aof_fsyncs:${info.syncs}`,
    `aof_cuts:${info.cuts}`,
  );
  return lines;
}

/**
 * CONFIG GET's values for the AOF settings set at start (appendfsync
 * changes live: live-parameters.ts).
 */
export function aofConfigValues(config: ServerConfig): RespServerOptions['configValues'] {
  return {
    appendonly: () => (config.appendonly ? 'yes' : 'no'),
    appendfilename: () => config.appendfilename,
    appenddirname: () => config.appenddirname,
  };
}
