import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryDevice } from '@strata/io';
import { afterEach, describe, expect, it } from 'vitest';
import { HlogError } from './errors.js';
import { Store } from './hlog-store.js';
import { RecordType } from './record-layout.js';
import {
  ANY_RECORD_TYPE,
  appendFunctions,
  incrFunctions,
  RMW_WRONG_TYPE,
  type RmwFunctions,
  setRangeFunctions,
} from './rmw-functions.js';
import { StoreCore } from './store.js';
import { SetFlag } from './store-types.js';

const k = (s: string) => Buffer.from(s);

function tiny() {
  const device = new MemoryDevice({ segmentSize: 1 << 16 });
  return new StoreCore({ device, memory: 4096, pageSize: 1024, indexBuckets: 16 });
}

/** Pushes `key`'s records to the device by writing other keys. */
async function pushToDisk(s: StoreCore, key: Buffer): Promise<void> {
  for (let i = 0; s.read(key).status !== 'pending' && i < 500; i++) {
    const v = s.upsert(k(`filler-${i}`), k('x'.repeat(40)));
    if (v.status === 'pending') await v.pending;
  }
  expect(s.read(key).status).toBe('pending');
}

async function readTyped(s: StoreCore, key: Buffer): Promise<string> {
  const r = await s.get(key);
  return r.status === 'found' ? `${r.type}:${r.value.toString()}` : 'notFound';
}

/** Appends '+' to a HASH record's serialized value (a collection's codec would). */
interface TagContext {
  created: boolean;
}
const hashAppend: RmwFunctions<TagContext> = {
  recordType: RecordType.HASH,
  initialLength: () => 1,
  initialValue(ctx, dst, off) {
    ctx.created = true;
    dst[off] = 0x2b;
  },
  updatedLength: (_ctx, _old, _off, len) => len + 1,
  update(_ctx, old, oo, ol, dst, off) {
    if (dst !== old || off !== oo) dst.set(old.subarray(oo, oo + ol), off);
    dst[off + ol] = 0x2b;
  },
};

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe('record types', () => {
  it('reads carry the type written; SET replaces a record of any type', async () => {
    const s = tiny();
    expect(s.upsert(k('h'), k('field'), 0, 0, RecordType.HASH).status).toBe('ok');
    const v = s.read(k('h'));
    expect(v.status === 'found' && v.type).toBe(RecordType.HASH);
    const p = s.probe(k('h'));
    expect(p.status === 'found' && p.type).toBe(RecordType.HASH);
    expect(await readTyped(s, k('h'))).toBe('1:field');
    expect(await s.keyType(k('h'))).toBe(RecordType.HASH);
    expect(await s.keyType(k('none'))).toBe(null);
    await s.set(k('z'), k('m'), { type: RecordType.ZSET });
    expect(await s.keyType(k('z'))).toBe(RecordType.ZSET);
    // In place (same slot) and as a new record: the type changes with the value.
    await s.set(k('h'), k('str'));
    expect(await readTyped(s, k('h'))).toBe('0:str');
    await s.set(k('z'), k('a longer string value than before'));
    expect(await readTyped(s, k('z'))).toBe('0:a longer string value than before');
  });

  it('SET ... GET over another type is refused and writes nothing', async () => {
    const s = tiny();
    s.upsert(k('l'), k('items'), 0, 0, RecordType.LIST);
    const v = s.upsert(k('l'), k('s'), 0, SetFlag.GET);
    expect(v.status).toBe('wrongType');
    expect(v.status === 'wrongType' && v.type).toBe(RecordType.LIST);
    expect(await s.set(k('l'), k('s'), { get: true, nx: true })).toEqual({
      status: 'wrongType',
      type: RecordType.LIST,
      old: null,
    });
    expect(await readTyped(s, k('l'))).toBe('4:items');
    // Same type: the old value is returned as before.
    const g = await s.set(k('l'), k('next'), { get: true, type: RecordType.LIST });
    expect(g.status === 'ok' && g.old?.toString()).toBe('items');
  });

  for (const where of ['mutable', 'disk'] as const) {
    it(`a delete told to keep a type leaves a record of it and says so (${where})`, async () => {
      const s = tiny();
      s.upsert(k('stream'), k('head'), 0, 0, RecordType.STREAM);
      s.upsert(k('str'), k('v'));
      if (where === 'disk') await pushToDisk(s, k('stream'));
      const removed = async (key: Buffer, keep?: RecordType) => {
        const v = s.remove(key, keep);
        return v.status === 'pending' ? await v.pending : v;
      };
      const kept = await removed(k('stream'), RecordType.STREAM);
      expect(kept.status).toBe('wrongType');
      expect(kept.status === 'wrongType' && kept.type).toBe(RecordType.STREAM);
      expect(await readTyped(s, k('stream'))).toBe('5:head');
      // Another type is deleted as usual; so is the kept type without `keep`.
      expect((await removed(k('str'), RecordType.STREAM)).status).toBe('deleted');
      expect((await removed(k('none'), RecordType.STREAM)).status).toBe('notFound');
      expect((await removed(k('stream'))).status).toBe('deleted');
      expect(await readTyped(s, k('stream'))).toBe('notFound');
    });
  }

  for (const where of ['memory', 'disk'] as const) {
    it(`string read-modify-writes refuse another type (${where}) and leave it unchanged`, async () => {
      const s = tiny();
      const key = k('hash');
      s.upsert(key, k('1'), 0, 0, RecordType.HASH);
      if (where === 'disk') await pushToDisk(s, key);
      const sync = async <C>(fns: RmwFunctions<C>, ctx: C) => {
        const v = s.readModifyWrite(key, fns, ctx);
        return v.status === 'pending' ? (await v.pending).status : v.status;
      };
      expect(await sync(incrFunctions, { delta: 1, result: 0 })).toBe('wrongType');
      expect(await sync(appendFunctions, { suffix: k('x') })).toBe('wrongType');
      expect(await sync(setRangeFunctions, { offset: 0, patch: k('y') })).toBe('wrongType');
      await expect(s.incrBy(key, 1)).rejects.toMatchObject({ code: 'ERR_WRONG_TYPE' });
      await expect(s.append(key, k('x'))).rejects.toBeInstanceOf(HlogError);
      await expect(s.setRange(key, 0, k('y'))).rejects.toMatchObject({
        code: 'ERR_WRONG_TYPE',
        message: 'WRONGTYPE Operation against a key holding the wrong kind of value',
      });
      let called = false;
      const r = await s.rmw(key, () => {
        called = true;
        return k('2');
      });
      expect(r).toEqual({ status: 'wrongType', type: RecordType.HASH, old: null });
      expect(called).toBe(false);
      // A user's functions without a recordType are string functions too.
      const plain: RmwFunctions<null> = { ...setRangeFunctions, recordType: undefined } as never;
      expect(await sync(plain, { offset: 0, patch: k('y') } as never)).toBe('wrongType');
      expect(await readTyped(s, key)).toBe('1:1');
      expect(await s.incrBy(k('counter'), 2)).toBe(2);
      expect(await readTyped(s, k('counter'))).toBe('0:2');
    });
  }

  it('functions of a collection type create, update and refuse by type', async () => {
    const s = tiny();
    const ctx: TagContext = { created: false };
    const v = s.readModifyWrite(k('h'), hashAppend, ctx);
    expect(v.status === 'ok' && v.created).toBe(true);
    s.readModifyWrite(k('h'), hashAppend, ctx);
    expect(await readTyped(s, k('h'))).toBe('1:++');
    await s.set(k('s'), k('str'));
    expect(s.readModifyWrite(k('s'), hashAppend, ctx).status).toBe('wrongType');
    expect(await readTyped(s, k('s'))).toBe('0:str');
    // ANY_RECORD_TYPE: updatedLength sees the type and refuses it itself.
    const seen: number[] = [];
    const onlyLists: RmwFunctions<null> = {
      recordType: ANY_RECORD_TYPE,
      initialLength: () => -1,
      initialValue() {},
      updatedLength(_c, _o, _off, len, type) {
        seen.push(type);
        return type === RecordType.LIST ? len : RMW_WRONG_TYPE;
      },
      update() {},
    };
    const w = s.readModifyWrite(k('h'), onlyLists, null);
    expect(w.status === 'wrongType' && w.type).toBe(RecordType.HASH);
    s.upsert(k('l'), k('abc'), 0, 0, RecordType.LIST);
    expect(s.readModifyWrite(k('l'), onlyLists, null).status).toBe('ok');
    expect(seen).toEqual([RecordType.HASH, RecordType.LIST]);
    expect(await readTyped(s, k('h'))).toBe('1:++');
    expect(await readTyped(s, k('l'))).toBe('4:abc');
  });

  it('types survive copies (expire, rmw), compaction and reopen', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hlog-type-'));
    dirs.push(dir);
    const opts = { dir, memory: 8192, pageSize: 1024, segmentSize: 4096, expiry: false } as const;
    const s1 = await Store.open(opts);
    const types = [RecordType.HASH, RecordType.SET, RecordType.ZSET, RecordType.LIST];
    for (let i = 0; i < 100; i++) {
      await s1.set(k(`t${i}`), k(`v${i}`), { type: types[i % 4]! });
    }
    for (let i = 0; i < 100; i += 3) await s1.expire(k(`t${i}`), 3_600_000);
    for (let i = 0; i < 100; i += 2) {
      // Only the HASH records (i % 4 === 0) take it.
      const v = s1.readModifyWrite(k(`t${i}`), hashAppend, { created: false });
      const status = v.status === 'pending' ? (await v.pending).status : v.status;
      expect(status).toBe(i % 4 === 0 ? 'ok' : 'wrongType');
    }
    for (let i = 0; i < 300; i++) await s1.set(k(`f${i}`), k('x'.repeat(30)));
    const c = await s1.compact();
    expect(c.copied).toBeGreaterThan(0);
    await s1.close();
    const s2 = await Store.open(opts);
    for (let i = 0; i < 100; i++) {
      const r = await s2.get(k(`t${i}`));
      const plus = i % 4 === 0 ? '+' : '';
      expect(r.status === 'found' && `${r.type}:${r.value}`).toBe(`${types[i % 4]}:v${i}${plus}`);
    }
    await s2.close();
  });
});
