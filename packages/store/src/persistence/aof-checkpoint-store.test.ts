import { type CheckpointMeta, MemoryCheckpointStore } from '@strata/hlog';
import { describe, expect, test } from 'vitest';
import { AofCheckpointStore } from './aof-checkpoint-store.js';

const meta = (seq: number, until: number): CheckpointMeta => ({
  version: 1,
  seq,
  epoch: 1,
  begin: 0,
  until,
  pageSize: 16384,
  indexBytes: 0,
  indexCrc: 0,
  createdAt: 0,
});

describe('AofCheckpointStore', () => {
  test('recovery sees only the checkpoint the AOF names; a newer unrecorded one stays hidden', async () => {
    const inner = new MemoryCheckpointStore();
    await inner.write(1, meta(1, 0), []);
    await inner.write(2, meta(2, 16384), []);
    const s = new AofCheckpointStore(inner, 1, false, async () => undefined);
    expect(await s.list()).toEqual([1]);
    // hlog removing "older" ones never takes the named one.
    await s.remove(1);
    expect(await inner.list()).toContain(1);
  });

  test('a new checkpoint is recorded (with its fold-over point) before it counts; older ones go', async () => {
    const inner = new MemoryCheckpointStore();
    await inner.write(1, meta(1, 0), []);
    const recorded: [number, number][] = [];
    const s = new AofCheckpointStore(inner, 1, false, async (seq, m) => {
      expect(await s.list()).toEqual([1]); // not yet
      recorded.push([seq, m.until]);
    });
    await s.write(2, meta(2, 32768), []);
    expect(recorded).toEqual([[2, 32768]]);
    expect(await s.list()).toEqual([2]);
    expect((await inner.list()).sort()).toEqual([2]);
  });

  test('a failed record leaves the named checkpoint in place', async () => {
    const inner = new MemoryCheckpointStore();
    await inner.write(1, meta(1, 0), []);
    const s = new AofCheckpointStore(inner, 1, false, async () => {
      throw new Error('ENOSPC');
    });
    await expect(s.write(2, meta(2, 16384), [])).rejects.toThrow('ENOSPC');
    expect(await s.list()).toEqual([1]);
  });

  test('adopting (no AOF entry yet): every checkpoint is visible, as without the AOF', async () => {
    const inner = new MemoryCheckpointStore();
    await inner.write(3, meta(3, 0), []);
    await inner.write(4, meta(4, 0), []);
    const s = new AofCheckpointStore(inner, null, true, async () => undefined);
    expect((await s.list()).sort()).toEqual([3, 4]);
  });
});
