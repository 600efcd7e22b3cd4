import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FaultDevice, MemoryDevice, MemoryVolume } from '@strata/io';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCheckpointStore } from './checkpoint-store.js';
import { Store, type StoreOptions } from './hlog-store.js';

const k = (s: string) => Buffer.from(s);
const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'hlog-'));
  dirs.push(d);
  return d;
}
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

function quiet(): { warn: (m: string) => void; warnings: string[] } {
  const warnings: string[] = [];
  return { warn: (m: string) => warnings.push(m), warnings };
}

const small: Partial<StoreOptions> = {
  memory: 8192,
  pageSize: 1024,
  segmentSize: 4096,
  indexBuckets: 16,
  expiry: false,
};

async function fill(store: Store, n: number, prefix = 'k', round = 0): Promise<void> {
  for (let i = 0; i < n; i++)
    await store.set(k(`${prefix}${i}`), k(`v${round}-${i}-${'.'.repeat(i % 30)}`));
}

async function check(store: Store, n: number, prefix = 'k', round = 0): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await store.get(k(`${prefix}${i}`));
    expect(r.status === 'found' && r.value.toString(), `${prefix}${i}`).toBe(
      `v${round}-${i}-${'.'.repeat(i % 30)}`,
    );
  }
}

describe('store on files', () => {
  it('close checkpoints; reopen loads the checkpoint', async () => {
    const dir = await tempDir();
    const s1 = await Store.open({ dir, ...small });
    await fill(s1, 300);
    await s1.delete(k('k5'));
    await s1.close();
    expect(await readdir(dir)).toContain('checkpoint.1.meta');
    const s2 = await Store.open({ dir, ...small });
    expect(s2.recovery.checkpoint).toBe(1);
    expect(s2.recovery.records).toBe(0);
    expect(await s2.exists(k('k5'))).toBe(false);
    await s2.set(k('k5'), k('v0-5-.....'));
    await check(s2, 300);
    await s2.close();
  });

  it('recovers after a crash: checkpoint + replay of the log after it', async () => {
    const dir = await tempDir();
    const s1 = await Store.open({ dir, ...small });
    await fill(s1, 200);
    await s1.checkpoint();
    await fill(s1, 100, 'late');
    // Everything up to the fold-over is on disk; then the process dies.
    await s1.checkpoint();
    await fill(s1, 50, 'lost');
    await s1.set(k('late0'), k('v0-0-'));
    await s1.abandon();
    const s2 = await Store.open({ dir, ...small });
    expect(s2.recovery.checkpoint).toBe(2);
    await check(s2, 200);
    await check(s2, 100, 'late');
    await s2.close();
  });

  it('rebuilds the index from the whole log without a checkpoint', async () => {
    const dir = await tempDir();
    const s1 = await Store.open({ dir, ...small });
    await fill(s1, 300);
    await s1.close();
    const s2 = await Store.open({ dir, ...small, rebuildIndex: true });
    expect(s2.recovery.checkpoint).toBeNull();
    expect(s2.recovery.records).toBeGreaterThanOrEqual(300);
    await check(s2, 300);
    await s2.close();
  });
});

describe('crash safety', () => {
  it('a crash while writing a checkpoint leaves the previous one usable', async () => {
    const volume = new MemoryVolume();
    const checkpoints = new MemoryCheckpointStore();
    let dev: MemoryDevice | undefined;
    const fresh = (): MemoryDevice => {
      dev = new MemoryDevice({ volume, segmentSize: 4096 });
      return dev;
    };
    let device = new MemoryDevice({ volume, segmentSize: 4096 });
    const s1 = await Store.open({ device, checkpoints, ...small });
    await fill(s1, 100);
    expect(await s1.checkpoint()).toBe(1);
    await fill(s1, 100, 'x');
    checkpoints.failNextWrite = true;
    await expect(s1.checkpoint()).rejects.toMatchObject({ code: 'ERR_IO' });
    await s1.abandon();
    await device.close();
    device = new MemoryDevice({ volume, segmentSize: 4096 });
    const s2 = await Store.open({ device, checkpoints, ...small });
    expect(s2.recovery.checkpoint).toBe(1);
    await check(s2, 100);
    // The log after checkpoint 1 was flushed by the failed one: replayed.
    await check(s2, 100, 'x');
    await s2.close();
    await device.close();
    // A corrupt newest checkpoint falls back to the one before... or a rebuild.
    checkpoints.corrupt(2);
    const log = quiet();
    const s3 = await Store.open({
      device: fresh(),
      checkpoints,
      ...small,
      logger: log,
    });
    expect(s3.recovery.checkpoint).toBeNull();
    expect(log.warnings.join()).toMatch(/corrupt/);
    await check(s3, 100);
    await check(s3, 100, 'x');
    await s3.close();
    await dev?.close();
  });

  it('a torn write of the last page is detected and cut off with a warning', async () => {
    const volume = new MemoryVolume();
    const checkpoints = new MemoryCheckpointStore();
    let dev: MemoryDevice | undefined;
    const fresh = (): MemoryDevice => {
      dev = new MemoryDevice({ volume, segmentSize: 4096 });
      return dev;
    };
    const inner = new MemoryDevice({ volume, segmentSize: 4096 });
    const device = new FaultDevice(inner, { closeInner: true });
    const s1 = await Store.open({ device, checkpoints, ...small });
    await fill(s1, 100);
    await s1.checkpoint();
    // The next page write is torn: a prefix lands, then the "machine dies".
    device.addFault({ effect: 'torn-write', on: 'write', persist: 300 });
    await fill(s1, 40, 'after');
    await s1.checkpoint().catch(() => undefined);
    await s1.abandon();
    await device.close();
    const log = quiet();
    const s2 = await Store.open({
      device: fresh(),
      checkpoints,
      ...small,
      logger: log,
    });
    expect(s2.recovery.cutAt).not.toBeNull();
    expect(log.warnings.join()).toMatch(/cut off.*checksum/);
    await check(s2, 100);
    // Writing resumes over the bad page; a second recovery is clean.
    await fill(s2, 60, 'again');
    await s2.close();
    await dev?.close();
    const s3 = await Store.open({
      device: fresh(),
      checkpoints,
      ...small,
      rebuildIndex: true,
      logger: log,
    });
    expect(s3.recovery.cutAt).toBeNull();
    await check(s3, 100);
    await check(s3, 60, 'again');
    await s3.close();
    await dev?.close();
  });
});

describe('compaction and expiry', () => {
  it('keeps every live key and frees disk under overwrites', async () => {
    const dir = await tempDir();
    const s = await Store.open({ dir, ...small, memory: 4096 });
    const keys = 40;
    const model = new Map<string, string>();
    let maxLog = 0;
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < keys; i++) {
        const v = `r${round}-${i}-${'#'.repeat((round * 7 + i) % 50)}`;
        await s.set(k(`key${i}`), k(v));
        model.set(`key${i}`, v);
      }
      if (round % 3 === 0) await s.delete(k(`key${round % keys}`));
      if (round % 3 === 0) model.delete(`key${round % keys}`);
      await s.compact();
      maxLog = Math.max(maxLog, s.stats().logBytes);
    }
    const st = s.stats();
    expect(st.compactions).toBeGreaterThan(3);
    expect(st.log.begin).toBeGreaterThan(0);
    // Live data is ~40 records of < 100 bytes: the log stays a few segments.
    expect(maxLog).toBeLessThan(8 * 4096);
    for (let i = 0; i < keys; i++) {
      const r = await s.get(k(`key${i}`));
      const want = model.get(`key${i}`);
      if (want === undefined) expect(r.status).toBe('notFound');
      else expect(r.status === 'found' && r.value.toString()).toBe(want);
    }
    await s.close();
    const files = (await readdir(dir)).filter((f) => f.startsWith('log.'));
    expect(files.length).toBeLessThanOrEqual(8);
    const s2 = await Store.open({ dir, ...small });
    for (const [key, v] of model) {
      const r = await s2.get(k(key));
      expect(r.status === 'found' && r.value.toString()).toBe(v);
    }
    await s2.close();
  });

  it('refuses a compaction threshold that is not a positive whole size (8 << 30 is 0 in JavaScript)', async () => {
    const dir = await tempDir();
    for (const maxLogBytes of [8 << 30, -1, Number.NaN, 1.5, 2 ** 60, Number.POSITIVE_INFINITY]) {
      await expect(
        Store.open({ dir, ...small, compaction: { maxLogBytes } }),
      ).rejects.toMatchObject({
        code: 'ERR_INVALID_ARGUMENT',
      });
    }
    const s = await Store.open({ dir, ...small, compaction: { maxLogBytes: 8 * 2 ** 30 } });
    await s.close();
  });

  it('runs compaction in the background when the log grows', async () => {
    const dir = await tempDir();
    const s = await Store.open({
      dir,
      ...small,
      compaction: { maxLogBytes: 6 * 4096, intervalMs: 5 },
    });
    for (let round = 0; round < 40; round++) {
      // Growing values never fit in place: every round appends.
      for (let i = 0; i < 20; i++)
        await s.set(k(`key${i}`), Buffer.alloc(16 + (round % 20) * 8, round));
      await new Promise((r) => setTimeout(r, 2));
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(s.stats().compactions).toBeGreaterThan(0);
    for (let i = 0; i < 20; i++) {
      const r = await s.get(k(`key${i}`));
      expect(r.status === 'found' && r.value).toEqual(Buffer.alloc(16 + 19 * 8, 39));
    }
    await s.close();
  });

  it('the active expiry cycle removes expired keys from the index', async () => {
    let now = 1_000_000;
    const device = new MemoryDevice({ segmentSize: 1 << 20 });
    const s = await Store.open({
      device,
      memory: 1 << 16,
      pageSize: 4096,
      indexBuckets: 16,
      clock: () => now,
      expiry: false,
    });
    for (let i = 0; i < 100; i++) await s.set(k(`e${i}`), k('v'), { ttlMs: 10 });
    for (let i = 0; i < 100; i++) await s.set(k(`p${i}`), k('v'));
    expect(s.stats().index.entries).toBeGreaterThanOrEqual(190);
    now += 20;
    let removed = 0;
    for (let i = 0; i < 10; i++) removed += s.expireSlice(8);
    expect(removed).toBeGreaterThan(90);
    expect(s.stats().index.entries).toBeLessThan(115);
    for (let i = 0; i < 100; i++) expect(await s.exists(k(`p${i}`))).toBe(true);
    for (let i = 0; i < 100; i++) expect(await s.exists(k(`e${i}`))).toBe(false);
    await s.close();
  });
});

describe('keys and values from JavaScript', () => {
  it('takes strings as UTF-8 and refuses other types by name', async () => {
    const dir = await tempDir();
    const s = await Store.open({ dir, ...small });
    // Before: both strings became the same four zero bytes.
    await s.set('abcd', 'first');
    await s.set('wxyz', 'second');
    const a = await s.get('abcd');
    expect(a.status === 'found' && a.value.toString()).toBe('first');
    const w = await s.get(Buffer.from('wxyz'));
    expect(w.status === 'found' && w.value.toString()).toBe('second');
    await s.set('ключ', 'значение');
    const u = await s.get(Buffer.from('ключ', 'utf8'));
    expect(u.status === 'found' && u.value.toString('utf8')).toBe('значение');
    expect(await s.append('abcd', '!')).toBe(6);
    expect(await s.incrBy('n', 2)).toBe(2);
    const untyped = s as unknown as {
      set(k: unknown, v: unknown): Promise<unknown>;
      get(k: unknown): Promise<unknown>;
    };
    await expect(untyped.set(1234, 'v')).rejects.toThrow(
      new TypeError('key must be a string, Buffer or Uint8Array, not a number'),
    );
    await expect(untyped.set('k', { a: 1 })).rejects.toThrow(TypeError);
    await expect(untyped.get(null)).rejects.toThrow(
      'key must be a string, Buffer or Uint8Array, not null',
    );
    expect(await s.exists('k')).toBe(false);
    await s.close();
  });
});

describe('one open store per directory', () => {
  it('a second open, in this process or another, fails with ERR_LOCKED; close frees it', async () => {
    const dir = await tempDir();
    const s = await Store.open({ dir, ...small });
    await s.set('k', 'v');
    await expect(Store.open({ dir, ...small })).rejects.toMatchObject({ code: 'ERR_LOCKED' });
    // Another process: the same refusal, from the lock file.
    const hlog = new URL('../dist/index.js', import.meta.url).href;
    const script = `import(${JSON.stringify(hlog)}).then(({ Store }) =>
      Store.open({ dir: ${JSON.stringify(dir)} }).then(
        () => { console.log('opened'); process.exit(0); },
        (e) => { console.log(e.code); process.exit(0); }));`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(r.stdout.trim()).toBe('ERR_LOCKED');
    await s.close();
    const again = await Store.open({ dir, ...small });
    const v = await again.get('k');
    expect(v.status === 'found' && v.value.toString()).toBe('v');
    // A crash (simulated) leaves the file; the next open takes it over.
    await again.abandon();
    await (await Store.open({ dir, ...small })).close();
  });
});

describe('the active expiry cycle', () => {
  it('runs at the rate it opened with, setExpiryRate replaces it live, close stops it', async () => {
    const store = await Store.open({ dir: await tempDir(), ...small, expiry: undefined });
    expect(store.expiryRate).toEqual({ intervalMs: 100, buckets: 1024 });
    store.setExpiryRate({ intervalMs: 5, buckets: 64 });
    expect(store.expiryRate).toEqual({ intervalMs: 5, buckets: 64 });
    // The new cycle drops a key that nobody reads.
    await store.set(k('gone'), k('v'), { ttlMs: 1 });
    await store.set(k('kept'), k('v'));
    const deadline = Date.now() + 10_000;
    while (store.coreStats().ops.expired === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(store.coreStats().ops.expired).toBe(1);
    await store.close();
    expect(store.expiryRate).toBeNull();
    store.setExpiryRate({ intervalMs: 5, buckets: 64 });
    expect(store.expiryRate).toBeNull();
  });

  it('expiry: false has none until setExpiryRate', async () => {
    const store = await Store.open({ dir: await tempDir(), ...small });
    expect(store.expiryRate).toBeNull();
    store.setExpiryRate({ intervalMs: 50, buckets: 16 });
    expect(store.expiryRate).toEqual({ intervalMs: 50, buckets: 16 });
    await store.close();
  });
});
