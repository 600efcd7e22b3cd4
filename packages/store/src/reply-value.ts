import { type ReplyVisitor, visitReply } from '@strata/protocol';
import { replyError, type StoreError } from './store-error.js';

/**
 * A command's reply as JavaScript values: simple strings as strings, bulk
 * strings as Buffers, integers and doubles as numbers (big numbers as
 * bigint), null as null, arrays and sets as arrays, maps as ReplyMap; an
 * error inside an array (a transaction's) as a StoreError.
 */
export type Reply =
  | null
  | boolean
  | number
  | bigint
  | string
  | Buffer
  | StoreError
  | readonly Reply[]
  | ReplyMap;

/** A RESP3 map reply: its pairs in the order the server wrote them. */
export class ReplyMap {
  constructor(readonly entries: readonly (readonly [Reply, Reply])[]) {}
}

interface Frame {
  readonly items: Reply[];
  left: number;
  readonly map: boolean;
}

/** Builds the tree of one reply from visitReply's events. */
class ReplyTree implements ReplyVisitor {
  root: Reply = null;
  private readonly stack: Frame[] = [];

  private put(v: Reply): void {
    let value = v;
    for (;;) {
      const top = this.stack.at(-1);
      if (top === undefined) {
        this.root = value;
        return;
      }
      top.items.push(value);
      if (--top.left > 0) return;
      this.stack.pop();
      value = top.map ? pairsOf(top.items) : top.items;
    }
  }

  private open(n: number, map: boolean): void {
    if (n <= 0) this.put(map ? new ReplyMap([]) : []);
    else this.stack.push({ items: [], left: map ? n * 2 : n, map });
  }

  simple(text: Buffer): void {
    this.put(text.toString('utf8'));
  }
  error(text: Buffer): void {
    this.put(replyError(text.toString('utf8')));
  }
  integer(value: number): void {
    this.put(value);
  }
  bulk(bytes: Buffer): void {
    // The reply buffer is the client's: the value is copied out of it.
    this.put(Buffer.from(bytes));
  }
  null(): void {
    this.put(null);
  }
  array(length: number): void {
    this.open(length, false);
  }
  map(pairs: number): void {
    this.open(pairs, true);
  }
  set(length: number): void {
    this.open(length, false);
  }
  double(value: number): void {
    this.put(value);
  }
  boolean(value: boolean): void {
    this.put(value);
  }
  bigNumber(digits: string): void {
    this.put(BigInt(digits));
  }
  verbatim(_format: string, text: Buffer): void {
    this.put(Buffer.from(text));
  }
}

function pairsOf(items: Reply[]): ReplyMap {
  const entries: (readonly [Reply, Reply])[] = [];
  for (let i = 0; i < items.length; i += 2) entries.push([items[i]!, items[i + 1]!]);
  return new ReplyMap(entries);
}

/** The reply that starts `bytes`, as values; a top-level error reply is thrown. */
export function decodeReply(bytes: Buffer): Reply {
  const tree = new ReplyTree();
  visitReply(bytes, 0, tree);
  const r = tree.root;
  if (r instanceof Error) throw r;
  return r;
}
