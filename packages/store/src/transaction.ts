import { Commands, type Decoder, type KeyEncoding } from './commands.js';
import { decodeReply, type Reply } from './reply-value.js';
import { StoreError } from './store-error.js';
import type { ValueEncoding } from './value-encoding.js';

interface Queued {
  readonly argv: Buffer[];
  readonly decode: Decoder<unknown>;
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: unknown) => void;
}

const MULTI = [Buffer.from('MULTI')];
const EXEC = [Buffer.from('EXEC')];

/**
 * The commands of one `Database.transaction`: each method queues its
 * command and returns a promise of its result, settled after EXEC.
 */
export class Transaction<V, K extends KeyEncoding> extends Commands<V, K> {
  private readonly queued: Queued[] = [];

  constructor(valueEncoding: ValueEncoding, keyEncoding: K) {
    super(valueEncoding, keyEncoding);
  }

  protected run<T>(argv: Buffer[], decode: Decoder<T>): Promise<T> {
    const p = new Promise<T>((resolve, reject) => {
      this.queued.push({ argv, decode, resolve: resolve as (v: unknown) => void, reject });
    });
    // A result nobody awaits is no unhandled rejection: the transaction's own result has it.
    p.catch(() => undefined);
    return p;
  }

  /** Any command by its Redis name, queued. */
  command(name: string, ...args: (string | Uint8Array)[]): Promise<Reply> {
    const argv = [Buffer.from(name), ...args.map((a) => Buffer.from(a))];
    return this.run(argv, (r) => r);
  }

  /** Sends MULTI, the commands and EXEC through `send`; every command's result, in order. */
  async exec(send: (argv: Buffer[]) => Promise<Buffer>): Promise<unknown[]> {
    if (this.queued.length === 0) return [];
    // One pipeline: MULTI, the commands (+QUEUED, or an error that aborts EXEC), EXEC.
    const queuedReplies = [send(MULTI), ...this.queued.map((q) => send(q.argv))];
    const exec = send(EXEC);
    await Promise.all(queuedReplies);
    let replies: Reply;
    try {
      replies = decodeReply(await exec);
    } catch (e) {
      for (const q of this.queued) q.reject(e);
      throw e;
    }
    if (!Array.isArray(replies)) {
      throw new StoreError('ERR_COMMAND', 'EXEC did not answer an array');
    }
    return this.queued.map((q, i) => {
      const r = replies[i] ?? null;
      try {
        if (r instanceof Error) throw r;
        const v = q.decode(r);
        q.resolve(v);
        return v;
      } catch (e) {
        q.reject(e);
        return e;
      }
    });
  }
}
