import type { AofPosition } from './aof-writer.js';

/**
 * Per database, where in the AOF the store's own coordinate (a "mark", e.g.
 * the log page a write landed in) first reached each value. A checkpoint
 * that covers everything below mark M then sits, in the AOF, just before
 * the first command appended at a mark >= M: commands before it are in the
 * checkpoint, commands from it on are not. Only changes of mark are kept
 * (one entry per log page), so appending costs nothing most of the time.
 */
export class CheckpointMarks {
  private readonly last = new Map<number, number>();
  private readonly entries = new Map<number, { mark: number; position: AofPosition }[]>();

  /** Notes that a command of `db` at `mark` starts at `position` (called only when it may be new). */
  note(db: number, mark: number, position: () => AofPosition): void {
    const last = this.last.get(db);
    if (last === mark) return;
    let list = this.entries.get(db);
    if (list === undefined) {
      list = [];
      this.entries.set(db, list);
    }
    // A lower mark: the database was replaced (FLUSHDB): earlier entries mean nothing now.
    if (last !== undefined && mark < last) list.length = 0;
    list.push({ mark, position: position() });
    this.last.set(db, mark);
  }

  /** Where a checkpoint of `db` covering marks below `cut` sits, or null: after everything so far. */
  positionOf(db: number, cut: number): AofPosition | null {
    const list = this.entries.get(db);
    if (list === undefined) return null;
    for (const e of list) if (e.mark >= cut) return e.position;
    return null;
  }

  /** Forgets entries below `cut` (a checkpoint there was recorded). */
  prune(db: number, cut: number): void {
    const list = this.entries.get(db);
    if (list === undefined) return;
    let i = 0;
    while (i < list.length && list[i]!.mark < cut) i++;
    if (i > 0) list.splice(0, i);
  }

  /** The database's store was replaced by a new one. */
  reset(db: number): void {
    this.entries.delete(db);
    this.last.delete(db);
  }
}
