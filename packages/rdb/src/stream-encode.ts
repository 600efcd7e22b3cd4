import type { ByteWriter } from './byte-writer.js';
import { LISTPACK_OVERHEAD, listpackElement, listpackOf } from './listpack.js';
import type { StreamEntry, StreamGroup, StreamId } from './stream-decode.js';

/** A stream to encode; a decoded StreamValue is one. */
export interface EncodableStream {
  readonly type: 'stream';
  readonly entries: readonly StreamEntry[];
  readonly length: number;
  readonly lastId: StreamId;
  readonly firstId?: StreamId | undefined;
  readonly maxDeletedEntryId?: StreamId | undefined;
  readonly entriesAdded?: bigint | undefined;
  readonly groups: readonly StreamGroup[];
}

const FLAG_SAMEFIELDS = 2;
const NODE_MAX_ENTRIES = 100; // stream-node-max-entries
const NODE_MAX_BYTES = 4096; // stream-node-max-bytes

function rawId(id: StreamId): Buffer {
  const b = Buffer.alloc(16);
  b.writeBigUInt64BE(id.ms, 0);
  b.writeBigUInt64BE(id.seq, 8);
  return b;
}

const el = (n: number | bigint | Buffer): Buffer =>
  listpackElement(typeof n === 'object' ? n : Buffer.from(String(n)));

function sameFields(e: StreamEntry, master: readonly Buffer[]): boolean {
  return (
    e.fields.length === master.length && e.fields.every(([f], i) => f.equals(master[i] as Buffer))
  );
}

/**
 * One listpack node as t_stream.c's streamAppendItem builds it: the master
 * entry <count> <deleted> <n> <field>*n 0 (the first entry's fields), then
 * per entry <flags> <ms-diff> <seq-diff> (<values> when SAMEFIELDS, else
 * <n> <field value>*n) <lp-count>. Its elements are kept encoded, so the
 * node's size is known as it grows.
 */
class StreamNode {
  readonly key: StreamId;
  private readonly master: readonly Buffer[];
  private readonly head: Buffer[];
  private readonly body: Buffer[] = [];
  private count = 0;
  private bodyBytes = 0;

  constructor(first: StreamEntry) {
    this.key = first.id;
    this.master = first.fields.map(([f]) => f);
    this.head = [el(0), el(this.master.length), ...this.master.map(el), el(0)];
  }

  /** lpBytes of the node now (the live count as it is stored then). */
  get bytes(): number {
    let n = LISTPACK_OVERHEAD + el(this.count).length + this.bodyBytes;
    for (const h of this.head) n += h.length;
    return n;
  }

  get size(): number {
    return this.count;
  }

  add(e: StreamEntry): void {
    const same = sameFields(e, this.master);
    const parts: Buffer[] = [
      el(same ? FLAG_SAMEFIELDS : 0),
      el(e.id.ms - this.key.ms),
      el(e.id.seq - this.key.seq),
    ];
    if (same) for (const [, v] of e.fields) parts.push(el(v));
    else {
      parts.push(el(e.fields.length));
      for (const [f, v] of e.fields) parts.push(el(f), el(v));
    }
    parts.push(el(3 + e.fields.length + (same ? 0 : e.fields.length + 1)));
    for (const p of parts) this.bodyBytes += p.length;
    this.body.push(...parts);
    this.count++;
  }

  listpack(): Buffer {
    const elements = [el(this.count), ...this.head, ...this.body];
    return listpackOf(elements, elements.length);
  }
}

/**
 * The entries in nodes where Redis would have put them: a new node when
 * the current one's bytes plus the entry's field and value lengths reach
 * stream-node-max-bytes, or it has stream-node-max-entries (the defaults,
 * 4096 and 100). A stream XADDed in ID order without deletions so DUMPs
 * to redis-server's bytes.
 */
function nodesOf(entries: readonly StreamEntry[]): StreamNode[] {
  const nodes: StreamNode[] = [];
  let cur: StreamNode | null = null;
  for (const e of entries) {
    let len = 0;
    for (const [f, v] of e.fields) len += f.length + v.length;
    if (cur !== null && (cur.bytes + len >= NODE_MAX_BYTES || cur.size >= NODE_MAX_ENTRIES)) {
      cur = null;
    }
    if (cur === null) {
      cur = new StreamNode(e);
      nodes.push(cur);
    }
    cur.add(e);
  }
  return nodes;
}

/** The body of an RDB_TYPE_STREAM_LISTPACKS_2 value (Redis 7.0's stream encoding). */
export function encodeStream(s: EncodableStream, w: ByteWriter): void {
  const nodes = nodesOf(s.entries);
  w.len(nodes.length);
  for (const n of nodes) {
    w.string(rawId(n.key));
    w.string(n.listpack());
  }
  const zero: StreamId = { ms: 0n, seq: 0n };
  const firstId = s.firstId ?? s.entries[0]?.id ?? zero;
  const maxDel = s.maxDeletedEntryId ?? zero;
  w.len(s.length).lenBig(s.lastId.ms).lenBig(s.lastId.seq);
  w.lenBig(firstId.ms).lenBig(firstId.seq).lenBig(maxDel.ms).lenBig(maxDel.seq);
  w.lenBig(s.entriesAdded ?? BigInt(s.length));
  w.len(s.groups.length);
  for (const g of s.groups) {
    w.string(g.name).lenBig(g.lastId.ms).lenBig(g.lastId.seq);
    w.lenBig(g.entriesRead ?? 0xffffffffffffffffn);
    w.len(g.pending.length);
    for (const p of g.pending) w.raw(rawId(p.id)).i64le(p.deliveryTimeMs).len(p.deliveryCount);
    w.len(g.consumers.length);
    for (const c of g.consumers) {
      w.string(c.name).i64le(c.seenTimeMs).len(c.pending.length);
      for (const id of c.pending) w.raw(rawId(id));
    }
  }
}
