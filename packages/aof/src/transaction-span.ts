import type { AofPosition } from './aof-writer.js';

/**
 * A MULTI .. EXEC being appended: where its MULTI starts, and a promise
 * settled once its EXEC is appended (and durable with `always`). A store
 * may checkpoint in its middle (a command of the transaction waited for
 * the disk): the checkpoint then holds the commands before its position
 * and replay applies the rest, which needs the rest in the file.
 */
export class TransactionSpan {
  private closedFlag = false;
  private resolve!: () => void;
  readonly ended: Promise<void>;

  constructor(readonly start: AofPosition) {
    this.ended = new Promise<void>((resolve) => {
      this.resolve = resolve;
    });
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** The EXEC was appended; `durable` settles once it is synced (`always`), if given. */
  close(durable: Promise<void> | undefined): void {
    this.closedFlag = true;
    if (durable === undefined) this.resolve();
    // A failed sync fails the EXEC's reply; the checkpoint is recorded either way.
    else durable.then(this.resolve, this.resolve);
  }
}

const MULTI = Buffer.from('MULTI');
const EXEC = Buffer.from('EXEC');

/** Whether `argv` is MULTI or EXEC (any case), without converting anything else. */
export function transactionVerb(argv: readonly Uint8Array[]): 'multi' | 'exec' | null {
  if (argv.length !== 1) return null;
  const a = argv[0]!;
  if (a.length === 5 && sameLetters(a, MULTI)) return 'multi';
  if (a.length === 4 && sameLetters(a, EXEC)) return 'exec';
  return null;
}

/** Whether `a` from `at` spells the letters of `upper` in any case (ASCII: bit 5 cleared). */
export function sameLetters(a: Uint8Array, upper: Buffer, at = 0): boolean {
  for (let i = 0; i < upper.length; i++) if ((a[at + i]! & 0xdf) !== upper[i]) return false;
  return true;
}
