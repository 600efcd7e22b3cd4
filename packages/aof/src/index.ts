export { type ReadAofOptions, type ReadAofResult, readAofFile } from './aof-reader.js';
export {
  type AofPosition,
  AofWriter,
  type AofWriterOptions,
  comparePositions,
} from './aof-writer.js';
export {
  type AofInfo,
  type AofLogger,
  AppendOnlyFile,
  type AppendOnlyFileOptions,
  type ReplayOptions,
  type ReplayResult,
} from './append-only-file.js';
export { CheckpointMarks } from './checkpoint-marks.js';
export { AofError, type AofErrorCode, describeError } from './errors.js';
export { type AofFileHandle, type AofFileSystem, nodeFileSystem } from './file-system.js';
export { FSYNC_POLICIES, type FsyncPolicy, isFsyncPolicy } from './fsync-policy.js';
export {
  type AofManifest,
  type CheckpointEntry,
  type CommitEntry,
  fileName,
  manifestName,
} from './manifest.js';
