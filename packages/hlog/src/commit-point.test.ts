import { MemoryDevice } from '@strata/io';
import { afterAll, describe, expect, it } from 'vitest';
import { fill, removeStoreDirs, smallStoreOptions, value } from '../test/consistent-store.js';
import { MemoryCheckpointStore } from './checkpoint-store.js';
import { Store, type StoreOptions } from './hlog-store.js';

/**
 * `Store.commit`: a fold-over, flush and sync without the index snapshot,
 * recorded as the store's clean-close point. With `consistentRecovery` a
 * crash after it recovers that moment (the checkpoint's index, then the log
 * up to the point), not the older checkpoint.
 */

afterAll(removeStoreDirs);

const options = (): Promise<StoreOptions> => smallStoreOptions('hlog-commit-', true);

describe('commit points', () => {
  it('a crash after a commit recovers the commit point, not the checkpoint before it', async () => {
    const o = await options();
    let store = await Store.open(o);
    await fill(store, 'a', 50, 'old');
    await store.checkpoint();
    // In the mutable region: updated in place until the commit seals it.
    await fill(store, 'a', 20, 'new');
    await fill(store, 'b', 200, 'committed');
    const point = await store.commit();
    expect(point).not.toBeNull();
    expect(store.stats().logCommits).toBe(1);
    // After the commit: not one moment with it, so not replayed.
    await fill(store, 'a', 50, 'lost');
    await fill(store, 'c', 200, 'lost');
    await store.log.sealAndFlush();
    await store.abandon();

    store = await Store.open(o);
    expect(store.recovery.replayedTo).toBe(point);
    expect(store.recovery.records).toBeGreaterThan(200);
    expect(store.recovery.unreplayedBytes).toBeGreaterThan(0);
    expect(await value(store, 'a:0')).toBe('new');
    expect(await value(store, 'a:19')).toBe('new');
    expect(await value(store, 'a:20')).toBe('old');
    expect(await value(store, 'b:199')).toBe('committed');
    expect(await value(store, 'c:0')).toBeNull();
    expect(await store.exactCount()).toBe(250);
    await store.close();
  });

  it('recovery after a crash during recovery finds the same moment', async () => {
    const o = await options();
    let store = await Store.open(o);
    await fill(store, 'k', 100, 'v1');
    const point = await store.commit();
    await fill(store, 'x', 100, 'after');
    await store.log.sealAndFlush();
    await store.abandon();
    // Opened (the tail after the commit put behind a checkpoint), written to, crashed again before a commit.
    store = await Store.open(o);
    expect(store.recovery.replayedTo).toBe(point);
    await fill(store, 'y', 100, 'again');
    await store.log.sealAndFlush();
    await store.abandon();
    store = await Store.open(o);
    expect(await value(store, 'k:99')).toBe('v1');
    expect(await value(store, 'x:0')).toBeNull();
    expect(await value(store, 'y:0')).toBeNull();
    expect(await store.exactCount()).toBe(100);
    // Commits go on from there.
    await fill(store, 'z', 10, 'z');
    expect(await store.commit()).not.toBeNull();
    await store.abandon();
    store = await Store.open(o);
    expect(await value(store, 'z:9')).toBe('z');
    expect(await store.exactCount()).toBe(110);
    await store.close();
  });

  it('a close waits for a commit still running: the close records the later point', async () => {
    /** Once armed, holds the next clean-close record back until `held()` (a slow commit). */
    class SlowCommitStore extends MemoryCheckpointStore {
      armed = false;
      held: (() => void) | null = null;
      override async writeCleanClose(point: number): Promise<void> {
        if (this.armed) {
          this.armed = false;
          await new Promise<void>((resolve) => {
            this.held = resolve;
          });
        }
        await super.writeCleanClose(point);
      }
    }
    const checkpoints = new SlowCommitStore();
    const device = new MemoryDevice();
    const o: StoreOptions = {
      device,
      checkpoints,
      memory: 8192,
      pageSize: 1024,
      expiry: false,
      checkpointOnClose: false,
      consistentRecovery: true,
      logger: { warn: () => undefined },
    };
    const store = await Store.open(o);
    await fill(store, 'a', 20, 'first');
    checkpoints.armed = true;
    const committing = store.commit();
    await fill(store, 'b', 20, 'second');
    const closing = store.close();
    // The commit is held at its record until the close has had every chance to finish first.
    while (checkpoints.held === null) await new Promise<void>((r) => setImmediate(r));
    for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
    checkpoints.held();
    expect(await committing).not.toBeNull();
    await closing;
    const again = await Store.open(o);
    expect(await value(again, 'a:19')).toBe('first');
    expect(await value(again, 'b:19')).toBe('second');
    await again.close();
  });
});
