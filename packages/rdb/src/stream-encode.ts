import type { ByteWriter } from './byte-writer.js';
import { writeListpack } from './listpack.js';
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

const num = (n: number | bigint): Buffer => Buffer.from(String(n));

function sameFields(e: StreamEntry, master: readonly Buffer[]): boolean {
  return (
    e.fields.length === master.length && e.fields.every(([f], i) => f.equals(master[i] as Buffer))
  );
}

/** One listpack node: the master entry (the first entry's fields), then each entry as t_stream.c lays it out. */
function nodeListpack(entries: readonly StreamEntry[]): Buffer {
  const first = entries[0] as StreamEntry;
  const master = first.fields.map(([f]) => f);
  const lp: Buffer[] = [num(entries.length), num(0), num(master.length), ...master, num(0)];
  for (const e of entries) {
    const same = sameFields(e, master);
    lp.push(
      num(same ? FLAG_SAMEFIELDS : 0),
      num(e.id.ms - first.id.ms),
      num(e.id.seq - first.id.seq),
    );
    if (same) for (const [, v] of e.fields) lp.push(v);
    else {
      lp.push(num(e.fields.length));
      for (const [f, v] of e.fields) lp.push(f, v);
    }
    lp.push(num(3 + e.fields.length + (same ? 0 : e.fields.length + 1)));
  }
  return writeListpack(lp);
}

/** The body of an RDB_TYPE_STREAM_LISTPACKS_2 value (Redis 7.0's stream encoding). */
export function encodeStream(s: EncodableStream, w: ByteWriter): void {
  const nodes: StreamEntry[][] = [];
  let cur: StreamEntry[] = [];
  let bytes = 0;
  for (const e of s.entries) {
    let sz = 16;
    for (const [f, v] of e.fields) sz += f.length + v.length + 4;
    if (cur.length > 0 && (cur.length >= NODE_MAX_ENTRIES || bytes + sz > NODE_MAX_BYTES)) {
      nodes.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(e);
    bytes += sz;
  }
  if (cur.length > 0) nodes.push(cur);
  w.len(nodes.length);
  for (const n of nodes) {
    w.string(rawId((n[0] as StreamEntry).id));
    w.string(nodeListpack(n));
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
