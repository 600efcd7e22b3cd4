import { foldOverOnOwnTurn } from '@strata/hlog';

const MULTI = Buffer.from('MULTI');
const EXEC = Buffer.from('EXEC');

function isWord(argv: readonly Buffer[], word: Buffer): boolean {
  return argv.length === 1 && argv[0]!.equals(word);
}

/**
 * Keeps every checkpoint's fold-over mark out of a transaction: the
 * command log sees a transaction's writes as MULTI, its writes, EXEC
 * (EXEC, a script, a batch), and while one is open the stores' checkpoint
 * hook makes the mark wait for its EXEC. Without an append-only file the
 * checkpoint is what a crash comes back to, so a mark between two of a
 * transaction's writes (one of them waiting on the disk) would keep half
 * of it. The mark also falls only at the start of a turn of its own
 * (foldOverOnOwnTurn), so a write that changed the store and is not yet
 * logged (a MULTI not yet seen) is never split from its transaction.
 */
export class TransactionFence {
  private open = 0;
  private waiters: (() => void)[] = [];

  /** Called with every command log entry, in order. */
  observe(argv: readonly Buffer[]): void {
    if (isWord(argv, MULTI)) this.open++;
    else if (isWord(argv, EXEC) && this.open > 0 && --this.open === 0) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    }
  }

  /** A checkpoint hook for one store (`onBeforeCheckpoint`). */
  hook(): () => Promise<void> | undefined {
    const turn = foldOverOnOwnTurn();
    return () => {
      if (this.open === 0) return turn();
      return new Promise<void>((resolve) => this.waiters.push(resolve));
    };
  }
}
