import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { args, openReplayed, type Replayed, tempDir } from '../test/support.js';
import { AppendOnlyFile, type ReplayOptions } from './append-only-file.js';

/**
 * Commit points in the AOF: a database's store records a synced moment of
 * its log after its checkpoint; the AOF names the position of the first
 * command not in it, syncs everything before it first (whatever the
 * policy), and replay can start there instead of at the checkpoint.
 */

let dir: string;
let cleanup: () => Promise<void>;
const opened: AppendOnlyFile[] = [];
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  for (const a of opened.splice(0)) await a.close().catch(() => undefined);
  await cleanup();
});

async function openAof(
  policy: 'always' | 'everysec' | 'no',
  replay: ReplayOptions = {},
): Promise<Replayed> {
  const r = await openReplayed({ dir, policy, syncIntervalMs: 3_600_000 }, replay);
  opened.push(r.aof);
  return r;
}

describe('commit points', () => {
  it('recordCommit names the first command at or past the mark; replay resumes there when asked', async () => {
    const { aof } = await openAof('always');
    await aof.append(0, args('SET', 'a', '1'), 1);
    await aof.recordCheckpoint(0, 1, 2);
    await aof.append(0, args('SET', 'b', '1'), 2);
    await aof.append(0, args('SET', 'c', '1'), 3);
    const commit = await aof.recordCommit(0, 3);
    expect(commit).not.toBeNull();
    await aof.append(0, args('SET', 'd', '1'), 3);
    expect(aof.checkpointOf(0)?.commit).toEqual(commit);
    // A commit at or below the checkpoint, or below the last commit, is not recorded.
    expect(await aof.recordCommit(0, 2)).toBeNull();
    expect(await aof.recordCommit(0, 3)).toBeNull();
    expect(await aof.recordCommit(1, 5)).toBeNull();
    await aof.close();

    const fromCheckpoint = await openAof('always');
    expect(fromCheckpoint.replayed).toEqual(['0:SET b 1', '0:SET c 1', '0:SET d 1']);
    expect(fromCheckpoint.aof.checkpointOf(0)?.commit).toEqual(commit);
    await fromCheckpoint.aof.close();
    const resumed = await openAof('always', { resumeFrom: new Map([[0, commit!.position]]) });
    expect(resumed.replayed).toEqual(['0:SET c 1', '0:SET d 1']);
    expect(resumed.result).toMatchObject({ applied: 2, skipped: 2 });
    // A checkpoint's entry drops the commit point (it is newer).
    await resumed.aof.recordCheckpoint(0, 2, 4);
    expect(resumed.aof.checkpointOf(0)?.commit).toBeUndefined();
  });

  it("with resumeFrom, files before every database's start are not read", async () => {
    const { aof } = await openAof('always');
    await aof.recordCheckpoint(0, 1, 1);
    await aof.recordCheckpoint(1, 1, 1);
    await aof.append(0, args('SET', 'a', '1'), 1);
    await aof.append(1, args('SET', 'x', '1'), 1);
    await aof.rotate();
    await aof.append(0, args('SET', 'b', '1'), 2);
    const c0 = await aof.recordCommit(0, 2);
    await aof.append(0, args('SET', 'c', '1'), 2);
    await aof.append(1, args('SET', 'y', '1'), 2);
    const c1 = await aof.recordCommit(1, 2);
    await aof.close();
    // Database 1 resumes from its checkpoint (file 1): every file is read.
    const partly = await openAof('always', { resumeFrom: new Map([[0, c0!.position]]) });
    expect(partly.replayed).toEqual(['1:SET x 1', '0:SET b 1', '0:SET c 1', '1:SET y 1']);
    expect(partly.result).toMatchObject({ skippedFiles: 0 });
    await partly.aof.close();
    const both = await openAof('always', {
      resumeFrom: new Map([
        [0, c0!.position],
        [1, c1!.position],
      ]),
    });
    expect(both.replayed).toEqual(['0:SET b 1', '0:SET c 1', '1:SET y 1']);
    expect(both.result).toMatchObject({ files: 1, skippedFiles: 1 });
    expect(both.result.skippedBytes).toBeGreaterThan(0);
    // Its size still counts in INFO's.
    expect(both.aof.info().totalSize).toBeGreaterThan(both.result.bytes);
  });

  it('forgetCommit drops it durably', async () => {
    const { aof } = await openAof('always');
    await aof.recordCheckpoint(0, 1, 1);
    await aof.append(0, args('SET', 'a', '1'), 1);
    expect(await aof.recordCommit(0, 2)).not.toBeNull();
    await aof.forgetCommit(0);
    await aof.close();
    const again = await openAof('always');
    expect(again.aof.checkpointOf(0)).toMatchObject({ id: 1, mark: 1 });
    expect(again.aof.checkpointOf(0)?.commit).toBeUndefined();
  });

  it('with appendfsync no / everysec the bytes before the commit are written and synced before it is recorded', async () => {
    for (const policy of ['no', 'everysec'] as const) {
      const { aof } = await openAof(policy);
      await aof.recordCheckpoint(0, 1, 1);
      const before = aof.info().syncs;
      for (let i = 0; i < 100; i++) aof.append(0, args('SET', `k${i}`, 'v'), 1);
      // Nothing written yet: the writer writes when the event loop idles.
      const commit = await aof.recordCommit(0, 2);
      expect(commit).not.toBeNull();
      expect(aof.info().syncs).toBeGreaterThan(before);
      // The manifest names a position whose bytes are in the file.
      const manifest = JSON.parse(await readFile(join(dir, 'appendonly.aof.manifest'), 'utf8')) as {
        databases: Record<string, { commit: { position: { offset: number } } }>;
      };
      const file = join(dir, `appendonly.aof.${commit!.position.file}.incr.aof`);
      expect((await stat(file)).size).toBeGreaterThanOrEqual(
        manifest.databases['0']!.commit.position.offset,
      );
      await aof.close();
      await cleanup();
      ({ dir, cleanup } = await tempDir());
    }
  });
});

describe('syncThrough under a steady load', () => {
  it('resolves while appends go on (it does not wait for the writer to idle)', async () => {
    const aof = await AppendOnlyFile.open({
      dir,
      policy: 'everysec',
      logger: { warn: () => undefined },
    });
    opened.push(aof);
    await aof.replay(() => undefined);
    await aof.recordCheckpoint(0, 1, 1);
    let stop = false;
    let appended = 0;
    // A writer that never lets the file's writer idle: a large batch every
    // turn, more than one write takes, so bytes are pending whenever one ends.
    const big = 'v'.repeat(64 * 1024);
    const load = (async () => {
      while (!stop) {
        for (let i = 0; i < 32; i++) aof.append(0, args('SET', `k${appended++}`, big), 2);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const commit = await aof.recordCommit(0, 2);
    const during = appended;
    stop = true;
    await load;
    expect(commit).not.toBeNull();
    // Recorded while the load still ran: appends went on after it.
    expect(appended).toBeGreaterThanOrEqual(during);
    expect(during).toBeGreaterThan(0);
  });
});
