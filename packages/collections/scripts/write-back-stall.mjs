// The longest event-loop stall while a dirty 1M-member collection is
// written back: one synchronous encode (`slicedWriteBackBytes: Infinity`,
// what every write-back did before) against the sliced write-back (the
// default), side by side in one process, variants alternating, several
// rounds. A 1 ms interval timer records its longest gap; the write-back's
// own duration is reported too. Ad hoc, not a strata-bench scenario.
//
//   pnpm -F @strata/hlog -F @strata/collections build
//   cd packages/collections && node scripts/write-back-stall.mjs zset|hash [members] [rounds]
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CollectionStore, HashValue, SortedSet } from '@strata/collections';
import { Store } from '@strata/hlog';

const kind = process.argv[2] ?? 'zset';
const n = Number(process.argv[3] ?? 1_000_000);
const rounds = Number(process.argv[4] ?? 5);

function build() {
  if (kind === 'hash') {
    const h = HashValue.empty();
    for (let i = 0; i < n; i++) h.set(`field:${i}:abcdef`, `value:${i}`);
    return h;
  }
  const z = new SortedSet();
  for (let i = 0; i < n; i++) z.add(`member:${i}:abcdefgh`, (i * 7919) % n);
  return z;
}

/** The longest gap between ticks of a 1 ms timer while `work` runs, and how long it took. */
async function measure(work) {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  longest = 0;
  last = performance.now();
  const t0 = performance.now();
  await work();
  const took = performance.now() - t0;
  await new Promise((resolve) => setTimeout(resolve, 20));
  clearInterval(timer);
  return { longest, took };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const dir = await mkdtemp(join(tmpdir(), 'strata-wb-stall-'));
try {
  const store = await Store.open({ dir, memory: 512 << 20, pageSize: 1 << 20, indexBuckets: 1024 });
  const value = build();
  const variants = {
    whole: new CollectionStore(store, { budgetBytes: 2 << 30, slicedWriteBackBytes: Infinity }),
    sliced: new CollectionStore(store, { budgetBytes: 2 << 30 }),
  };
  const results = { whole: [], sliced: [] };
  for (const [name, cs] of Object.entries(variants)) await cs.create(Buffer.from(name), value);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? ['whole', 'sliced'] : ['sliced', 'whole'];
    for (const name of order) {
      const cs = variants[name];
      const key = Buffer.from(name);
      if (kind === 'hash') value.set(`extra:${r}`, 'x');
      else value.add(`extra:${r}`, r);
      cs.changed(key, value);
      results[name].push(await measure(() => cs.writeBack(key)));
    }
  }
  console.log(
    `${kind} of ${value.size} members, ${value.encode().length} bytes encoded, ` +
      `${rounds} rounds, load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
  );
  for (const [name, rs] of Object.entries(results)) {
    const stalls = rs.map((x) => x.longest.toFixed(1)).join(' ');
    const tooks = rs.map((x) => x.took.toFixed(0)).join(' ');
    console.log(
      `${name.padEnd(6)} longest stall ms: median ${median(rs.map((x) => x.longest)).toFixed(1)} [${stalls}]; ` +
        `write-back ms: median ${median(rs.map((x) => x.took)).toFixed(0)} [${tooks}]`,
    );
  }
  for (const cs of Object.values(variants)) cs.dispose();
  await store.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
