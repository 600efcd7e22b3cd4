import type { CheckpointMeta, CheckpointStore } from '@strata/hlog';

/**
 * A database's checkpoint store with the AOF on: the AOF's manifest decides
 * which checkpoint recovery loads. A checkpoint counts once the AOF has
 * recorded its position (`onWritten`, inside `write`, so before hlog drops
 * older checkpoints or truncates segments after a compaction); recovery
 * sees only that one. `adopting`: the database has no entry in the AOF yet
 * (first start with the AOF on): recovery sees every checkpoint, as without
 * the AOF, and the first checkpoint taken becomes the entry.
 */
export class AofCheckpointStore implements CheckpointStore {
  constructor(
    private readonly inner: CheckpointStore,
    private approved: number | null,
    private adopting: boolean,
    private readonly onWritten: (seq: number, meta: CheckpointMeta) => Promise<void>,
  ) {}

  async list(): Promise<number[]> {
    const all = await this.inner.list();
    if (this.adopting) return all;
    return this.approved !== null && all.includes(this.approved) ? [this.approved] : [];
  }

  async write(seq: number, meta: CheckpointMeta, index: readonly Uint8Array[]): Promise<void> {
    await this.inner.write(seq, meta, index);
    await this.onWritten(seq, meta);
    this.approved = seq;
    this.adopting = false;
    // Now durable and recorded: every other checkpoint goes (hlog drops the
    // ones `list` shows below the new one, and it shows only this one now),
    // older ones and newer ones the AOF never recorded (a crash in between).
    for (const other of await this.inner.list()) if (other !== seq) await this.inner.remove(other);
  }

  read(seq: number): ReturnType<CheckpointStore['read']> {
    return this.inner.read(seq);
  }

  async remove(seq: number): Promise<void> {
    // The AOF's positions refer to this one until a newer one is recorded.
    if (seq === this.approved) return;
    await this.inner.remove(seq);
  }

  /** Checkpoints it hides are numbered past too, so a new one never overwrites their files. */
  async highest(): Promise<number> {
    return Math.max(...(await this.inner.list()), (await this.inner.highest?.()) ?? 0, 0);
  }

  readEpoch(): Promise<number> {
    return this.inner.readEpoch();
  }

  writeEpoch(epoch: number): Promise<void> {
    return this.inner.writeEpoch(epoch);
  }

  readCleanClose(): Promise<number | null> {
    return this.inner.readCleanClose();
  }

  writeCleanClose(point: number): Promise<void> {
    return this.inner.writeCleanClose(point);
  }
}
