import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { memoryOverhead } from './memory-facts.js';

/**
 * Redis 7.0's `%.17g` (addReplyDouble then): 17 significant digits, the
 * trailing zeros dropped. The ratios Redis computes as C floats go through
 * Math.fround first, so the digits are those of the same float.
 */
export function formatG17(v: number): string {
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf';
  if (v === 0) return '0';
  const exp = Math.floor(Math.log10(Math.abs(v)));
  if (exp < -4 || exp >= 17) {
    const [m = '', e = '0'] = v.toExponential(16).split('e');
    const mant = m.includes('.') ? m.replace(/0+$/, '').replace(/\.$/, '') : m;
    const n = Number(e);
    return `${mant}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  const t = v.toPrecision(17);
  return t.includes('.') ? t.replace(/0+$/, '').replace(/\.$/, '') : t;
}

function double(c: Client, v: number): void {
  const text = formatG17(v);
  if (c.reply.protocol === 3) c.reply.raw(Buffer.from(`,${text}\r\n`, 'latin1'));
  else c.reply.bulk(text);
}

type Field = readonly [name: string, value: number, kind: 'int' | 'float'];

/**
 * MEMORY STATS: Redis 7.0's fields in its order, integers and doubles as
 * it replies them (a map; in RESP2 a flat array). What strata can say:
 * total/peak allocated (INFO's used_memory and used_memory_peak), the
 * key counts (a `db.N` map for each open database with keys), dataset
 * bytes and percentages from them, fragmentation (RSS over used memory).
 * Fields about jemalloc, replication, AOF buffers, client buffers, script
 * caches, cluster links and dictionary overheads have no counterpart: 0.
 * No startup figure is kept, so startup.allocated and overhead.total are 0.
 */
export function memoryStats(c: Client): CommandResult {
  return memoryOverhead(c.server).then((m) => {
    const startup = 0;
    const overhead = 0;
    const net = m.used > startup ? m.used - startup : 1;
    const dataset = m.used - overhead;
    const head: Field[] = [
      ['peak.allocated', m.peak, 'int'],
      ['total.allocated', m.used, 'int'],
      ['startup.allocated', startup, 'int'],
      ['replication.backlog', 0, 'int'],
      ['clients.slaves', 0, 'int'],
      ['clients.normal', 0, 'int'],
      ['cluster.links', 0, 'int'],
      ['aof.buffer', 0, 'int'],
      ['lua.caches', 0, 'int'],
      ['functions.caches', 0, 'int'],
    ];
    const tail: Field[] = [
      ['overhead.total', overhead, 'int'],
      ['keys.count', m.keys, 'int'],
      ['keys.bytes-per-key', m.keys === 0 ? 0 : Math.floor(net / m.keys), 'int'],
      ['dataset.bytes', dataset, 'int'],
      ['dataset.percentage', Math.fround((dataset * 100) / net), 'float'],
      ['peak.percentage', Math.fround((m.used * 100) / m.peak), 'float'],
      ['allocator.allocated', 0, 'int'],
      ['allocator.active', 0, 'int'],
      ['allocator.resident', 0, 'int'],
      ['allocator-fragmentation.ratio', 0, 'float'],
      ['allocator-fragmentation.bytes', 0, 'int'],
      ['allocator-rss.ratio', 0, 'float'],
      ['allocator-rss.bytes', 0, 'int'],
      ['rss-overhead.ratio', 0, 'float'],
      ['rss-overhead.bytes', 0, 'int'],
      ['fragmentation', Math.fround(m.rss / m.used), 'float'],
      ['fragmentation.bytes', m.rss - m.used, 'int'],
    ];
    const write = (f: Field) => {
      c.reply.bulk(f[0]);
      if (f[2] === 'int') c.reply.integer(f[1]);
      else double(c, f[1]);
    };
    c.reply.map(head.length + m.keysByDb.size + tail.length);
    for (const f of head) write(f);
    for (const db of m.keysByDb.keys()) {
      c.reply.bulk(`db.${db}`);
      c.reply.map(3);
      for (const name of ['main', 'expires', 'slot-to-keys']) {
        c.reply.bulk(`overhead.hashtable.${name}`);
        c.reply.integer(0);
      }
    }
    for (const f of tail) write(f);
  });
}
