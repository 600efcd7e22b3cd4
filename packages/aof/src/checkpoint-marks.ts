import type { AofPosition } from './aof-writer.js';
import type { TransactionSpan } from './transaction-span.js';

/** Where a database's commands first reached a mark, and the transaction that position is inside, if any. */
export interface MarkEntry {
  readonly mark: number;
  readonly position: AofPosition;
  readonly inside: TransactionSpan | null;
}

/**
 * Per database, where in the AOF the store's own coordinate (a "mark", e.g.
 * the log page a write landed in) first reached each value. A checkpoint
 * that covers everything below mark M then sits, in the AOF, just before
 * the first command appended at a mark >= M: commands before it are in the
 * checkpoint, commands from it on are not (that may be in the middle of a
 * MULTI .. EXEC whose first commands the checkpoint holds). Only changes of
 * mark are kept (one entry per log page), so appending costs nothing most
 * of the time.
 */
export class CheckpointMarks {
  private readonly last = new Map<number, number>();
  private readonly entries = new Map<number, MarkEntry[]>();

  /**
   * Notes that a command of `db` at `mark` starts at `position` (called
   * only when it may be new), inside the transaction `inside` (null: none,
   * or the command is the transaction's MULTI).
   */
  note(
    db: number,
    mark: number,
    position: () => AofPosition,
    inside: TransactionSpan | null = null,
  ): void {
    const last = this.last.get(db);
    if (last === mark) return;
    let list = this.entries.get(db);
    if (list === undefined) {
      list = [];
      this.entries.set(db, list);
    }
    // A lower mark: the database was replaced (FLUSHDB): earlier entries mean nothing now.
    if (last !== undefined && mark < last) list.length = 0;
    list.push({ mark, position: position(), inside });
    this.last.set(db, mark);
  }

  /** The entry a checkpoint of `db` covering marks below `cut` sits at, or null: after everything so far. */
  entryOf(db: number, cut: number): MarkEntry | null {
    const list = this.entries.get(db);
    if (list === undefined) return null;
    for (const e of list) if (e.mark >= cut) return e;
    return null;
  }

  /** Where a checkpoint of `db` covering marks below `cut` sits, or null: after everything so far. */
  positionOf(db: number, cut: number): AofPosition | null {
    return this.entryOf(db, cut)?.position ?? null;
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
