import { appendFile, readdir, readFile, stat, truncate, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeCommand } from '@strata/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { args, FaultyFileSystem, openReplayed, type Replayed, tempDir } from '../test/support.js';
import { AppendOnlyFile, type AppendOnlyFileOptions } from './append-only-file.js';
import type { AofError } from './errors.js';
import { decodeManifest, encodeManifest } from './manifest.js';

let dir: string;
let cleanup: () => Promise<void>;
const opened: AppendOnlyFile[] = [];
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  // Close what a test left open (close twice is harmless).
  for (const a of opened.splice(0)) await a.close().catch(() => undefined);
  await cleanup();
});

async function openAof(options: Partial<AppendOnlyFileOptions> = {}): Promise<Replayed> {
  const r = await openReplayed({ dir, ...options });
  opened.push(r.aof);
  return r;
}

describe('AppendOnlyFile', () => {
  it('creates appendonly.aof.1.incr.aof and a manifest; a reopen replays every command in order', async () => {
    const { aof } = await openAof();
    await aof.append(0, args('SET', 'a', '1'));
    await aof.append(1, args('INCR', 'n'));
    await aof.append(0, args('APPEND', 'a', 'x'));
    await aof.close();
    expect((await readdir(dir)).sort()).toEqual([
      'appendonly.aof.1.incr.aof',
      'appendonly.aof.manifest',
    ]);
    const { replayed, result, aof: again } = await openAof();
    expect(replayed).toEqual(['0:SET a 1', '1:INCR n', '0:APPEND a x']);
    expect(result).toMatchObject({ applied: 3, skipped: 0, truncated: null });
    await again.close();
  });

  it('cuts a torn last record off with a warning, truncates the file and appends after it', async () => {
    const { aof } = await openAof({ policy: 'no' });
    aof.append(0, args('SET', 'a', '1'));
    aof.append(0, args('SET', 'b', '2'));
    await aof.close();
    const path = join(dir, 'appendonly.aof.1.incr.aof');
    const full = (await stat(path)).size;
    await appendFile(path, encodeCommand(['SET', 'c', '3']).subarray(0, 10));
    const r = await openAof({ policy: 'no' });
    expect(r.replayed).toEqual(['0:SET a 1', '0:SET b 2']);
    expect(r.result.truncated).toMatchObject({ file: 1, offset: full, bytes: 10 });
    expect(r.warnings.join()).toMatch(/short read while loading the AOF/);
    expect((await stat(path)).size).toBe(full);
    r.aof.append(0, args('SET', 'd', '4'));
    await r.aof.close();
    expect((await openAof()).replayed).toEqual(['0:SET a 1', '0:SET b 2', '0:SET d 4']);
  });

  it("with loadTruncated false (aof-load-truncated no) a torn last record refuses the replay in Redis's words, and the file is left as it was", async () => {
    const { aof } = await openAof({ policy: 'no' });
    aof.append(0, args('SET', 'a', '1'));
    await aof.close();
    const path = join(dir, 'appendonly.aof.1.incr.aof');
    await appendFile(path, encodeCommand(['SET', 'c', '3']).subarray(0, 10));
    const torn = (await stat(path)).size;
    const refused = await openReplayed({ dir, policy: 'no' }, { loadTruncated: false }).then(
      () => null,
      (e: unknown) => e as AofError,
    );
    expect(refused?.code).toBe('ERR_AOF_TRUNCATED');
    expect(refused?.message).toBe(
      'Unexpected end of file reading the append only file appendonly.aof.1.incr.aof. You can: ' +
        '1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. ' +
        "2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.",
    );
    expect((await stat(path)).size).toBe(torn);
    // The default cuts it, as before.
    expect((await openAof({ policy: 'no' })).replayed).toEqual(['0:SET a 1']);
  });

  it('replays each database from its checkpoint position: marks tell which commands a checkpoint holds', async () => {
    const { aof } = await openAof({ policy: 'no' });
    // db 0's store writes land on "pages" 1, 1, 2; db 1 on page 7.
    aof.append(0, args('SET', 'a', '1'), 1);
    aof.append(1, args('SET', 'x', '1'), 7);
    aof.append(0, args('INCR', 'n'), 1);
    aof.append(0, args('INCR', 'n'), 2); // after the fold-over at page 2
    aof.append(1, args('INCR', 'y'), 7);
    // Checkpoint of db 0 covering pages below 2: its position is the third INCR's record.
    const e0 = await aof.recordCheckpoint(0, 5, 2);
    // Checkpoint of db 1 covering everything so far (page 8 never reached).
    const e1 = await aof.recordCheckpoint(1, 9, 8);
    aof.append(1, args('SET', 'x', '2'), 8);
    expect(e0.id).toBe(5);
    expect(e1.position.offset).toBeGreaterThan(e0.position.offset);
    await aof.close();
    const r = await openAof();
    expect(r.replayed).toEqual(['0:INCR n', '1:SET x 2']);
    expect(r.result).toMatchObject({ applied: 2, skipped: 4 });
    expect(r.aof.checkpointOf(0)).toEqual(e0);
    expect(r.aof.checkpointOf(1)).toMatchObject({ id: 9, mark: 8 });
    expect(r.aof.checkpointOf(2)).toBeUndefined();
    await r.aof.close();
  });

  it('rotate + cut: old files go once every database is checkpointed past them; commands after the positions survive', async () => {
    const { aof } = await openAof({ policy: 'everysec' });
    aof.append(0, args('SET', 'a', '1'), 0);
    aof.append(1, args('SET', 'b', '1'), 0);
    await aof.rotate();
    aof.append(0, args('SET', 'a', '2'), 1); // after db 0's fold-over at 1
    await aof.recordCheckpoint(0, 1, 1);
    // db 1 still needs file 1 (no checkpoint): nothing is cut.
    expect(await aof.cut()).toEqual([]);
    await aof.recordCheckpoint(1, 1, 1);
    expect(await aof.cut()).toEqual([1]);
    aof.append(1, args('SET', 'b', '2'), 1);
    await aof.close();
    expect((await readdir(dir)).sort()).toEqual([
      'appendonly.aof.2.incr.aof',
      'appendonly.aof.manifest',
    ]);
    const r = await openAof();
    expect(r.replayed).toEqual(['0:SET a 2', '1:SET b 2']);
    await r.aof.close();
  });

  it('create starts over an earlier AOF: a new manifest and file, the old files gone, nothing of them replayed', async () => {
    const { aof: old } = await openAof({ policy: 'no' });
    old.append(0, args('SET', 'a', '1'), 0);
    await old.recordCheckpoint(0, 7, 1);
    await old.rotate();
    old.append(1, args('SET', 'b', '1'), 0);
    await old.close();
    const aof = await AppendOnlyFile.create({ dir, policy: 'no' });
    opened.push(aof);
    expect(aof.checkpointOf(0)).toBeUndefined();
    await aof.append(2, args('SET', 'c', '1'));
    await aof.close();
    expect((await readdir(dir)).sort()).toEqual([
      'appendonly.aof.3.incr.aof',
      'appendonly.aof.manifest',
    ]);
    const r = await openAof();
    expect(r.replayed).toEqual(['2:SET c 1']);
    expect(r.aof.checkpointOf(0)).toBeUndefined();
  });

  it('create in an empty directory starts at file 1, ready to append', async () => {
    const aof = await AppendOnlyFile.create({ dir, policy: 'always' });
    opened.push(aof);
    await aof.append(0, args('SET', 'a', '1'));
    await aof.close();
    expect((await openAof()).replayed).toEqual(['0:SET a 1']);
    expect((await readdir(dir)).sort()).toEqual([
      'appendonly.aof.1.incr.aof',
      'appendonly.aof.manifest',
    ]);
  });

  it('a database with no command after its checkpoint does not hold files back', async () => {
    const { aof } = await openAof({ policy: 'no' });
    aof.append(3, args('SET', 'k', 'v'), 0);
    await aof.recordCheckpoint(3, 1, 1);
    await aof.rotate();
    aof.append(0, args('SET', 'a', '1'), 0);
    await aof.recordCheckpoint(0, 1, 0); // db 0's checkpoint is before its command
    await aof.rotate();
    expect(await aof.cut()).toEqual([1]); // file 2 holds db 0's command
    await aof.close();
    expect((await openAof()).replayed).toEqual(['0:SET a 1']);
  });

  it('removes the files an interrupted rotation or cut leaves, and refuses to start over a file with commands that no manifest lists', async () => {
    const { aof } = await openAof({ policy: 'no' });
    aof.append(0, args('SET', 'a', '1'));
    await aof.recordCheckpoint(0, 1, 0);
    await aof.rotate();
    aof.append(0, args('SET', 'b', '1'));
    await aof.close();
    // A cut that crashed after its manifest: file 1 is not listed any more.
    const manifestPath = join(dir, 'appendonly.aof.manifest');
    const m = decodeManifest(await readFile(manifestPath), manifestPath);
    await writeFile(
      manifestPath,
      encodeManifest({
        ...m,
        files: [2],
        databases: { 0: { id: 1, mark: 0, position: { file: 2, offset: 0 } } },
      }),
    );
    // A rotation that crashed before its manifest: an empty file 3.
    await writeFile(join(dir, 'appendonly.aof.3.incr.aof'), '');
    const r = await openAof();
    expect(r.replayed).toEqual(['0:SET b 1']);
    expect(r.warnings.join()).toMatch(/Removed appendonly.aof.1.incr.aof/);
    expect(r.warnings.join()).toMatch(/Removed appendonly.aof.3.incr.aof/);
    expect((await readdir(dir)).sort()).toEqual([
      'appendonly.aof.2.incr.aof',
      'appendonly.aof.manifest',
    ]);
    await r.aof.close();
    // Commands in a file the manifest never listed: nothing accounts for them.
    const ghost = encodeCommand(['SET', 'ghost', '1']);
    await writeFile(join(dir, 'appendonly.aof.7.incr.aof'), ghost);
    await expect(openAof()).rejects.toMatchObject({
      code: 'ERR_AOF_MANIFEST',
      message: expect.stringMatching(
        /appendonly.aof.7.incr.aof holds 31 bytes of commands but the manifest .* does not list it\. Refusing to start/,
      ),
    });
    expect(await readFile(join(dir, 'appendonly.aof.7.incr.aof'))).toEqual(ghost);
  });

  it('a missing manifest over files with commands: refuses to start and removes nothing (Redis would start empty and write over them)', async () => {
    const { aof } = await openAof({ policy: 'no' });
    aof.append(0, args('SET', 'a', '1'));
    await aof.close();
    const path = join(dir, 'appendonly.aof.1.incr.aof');
    const bytes = await readFile(path);
    await unlink(join(dir, 'appendonly.aof.manifest'));
    await expect(openAof()).rejects.toMatchObject({
      code: 'ERR_AOF_MANIFEST',
      message: expect.stringMatching(
        /manifest .* is missing, but .* holds 1 AOF file with commands \(appendonly.aof.1.incr.aof: \d+ bytes\)\. Refusing to start/,
      ),
    });
    expect(await readFile(path)).toEqual(bytes);
    expect(await readdir(dir)).toEqual(['appendonly.aof.1.incr.aof']);
    // Only an empty file (a crash while creating the AOF): a fresh start.
    await writeFile(path, '');
    const r = await openAof();
    expect(r.replayed).toEqual([]);
    await r.aof.close();
  });

  it('a bad record in the middle refuses to start with the file, the offset and the way out', async () => {
    const { aof } = await openAof({ policy: 'no' });
    aof.append(0, args('SET', 'a', '1'));
    aof.append(0, args('SET', 'b', '2'));
    aof.append(0, args('SET', 'c', '3'));
    await aof.close();
    const path = join(dir, 'appendonly.aof.1.incr.aof');
    const bytes = await readFile(path);
    const second = bytes.indexOf('*3', 1);
    bytes[second] = 'X'.charCodeAt(0);
    await writeFile(path, bytes);
    await expect(openAof()).rejects.toMatchObject({
      code: 'ERR_AOF_CORRUPT',
      address: second,
      message: expect.stringMatching(
        new RegExp(
          `^Bad file format reading the append only file appendonly.aof.1.incr.aof at offset ${second} .*truncate -s ${second} .*appendonly.aof.1.incr.aof \\(redis-check-aof --fix`,
        ),
      ),
    });
    // Nothing cut: the operator decides.
    expect(await readFile(path)).toEqual(bytes);
  });

  it('a failed manifest write leaves the old manifest and the writer where they were', async () => {
    const fs = new FaultyFileSystem();
    const { aof } = await openAof({ policy: 'no', fs });
    aof.append(0, args('SET', 'a', '1'));
    fs.failManifest = true;
    await expect(aof.rotate()).rejects.toMatchObject({ code: 'ERR_AOF_WRITE' });
    expect(aof.position().file).toBe(1);
    aof.append(0, args('SET', 'b', '2'));
    fs.failManifest = false;
    await aof.close();
    const m = JSON.parse(await readFile(join(dir, 'appendonly.aof.manifest'), 'utf8'));
    expect(m.files).toEqual([1]);
    expect((await openAof()).replayed).toEqual(['0:SET a 1', '0:SET b 2']);
  });

  it('write errors reach onWriteStatus and info(); they clear once writes succeed', async () => {
    const fs = new FaultyFileSystem();
    const statuses: (string | null)[] = [];
    const { aof } = await openAof({
      fs,
      retryMs: 10,
      onWriteStatus: (e) => statuses.push(e === null ? null : e.message),
    });
    fs.failWrites = 'enospc';
    await expect(aof.append(0, args('SET', 'a', '1'))).rejects.toThrow(/No space left/);
    expect(aof.info()).toMatchObject({ lastWriteStatus: 'err', policy: 'always' });
    fs.failWrites = 'no';
    await aof.append(0, args('SET', 'b', '2'));
    expect(aof.info().lastWriteStatus).toBe('ok');
    expect(statuses).toEqual([expect.stringMatching(/No space left/), null]);
    await aof.close();
    expect((await openAof()).replayed).toEqual(['0:SET a 1', '0:SET b 2']);
  });

  it('a torn tail in a file that is not the last one is corruption', async () => {
    const { aof } = await openAof({ policy: 'no' });
    aof.append(0, args('SET', 'a', '1'));
    await aof.rotate();
    aof.append(0, args('SET', 'b', '1'));
    await aof.close();
    const first = join(dir, 'appendonly.aof.1.incr.aof');
    await truncate(first, (await stat(first)).size - 3);
    await expect(openAof()).rejects.toMatchObject({ code: 'ERR_AOF_CORRUPT' });
  });
});

describe('AppendOnlyFile transactions', () => {
  it('applies MULTI .. EXEC whole (its commands, each at its own time), and reverts one the file ends inside', async () => {
    const { aof } = await openAof({ policy: 'no' });
    aof.append(0, args('MULTI'));
    aof.append(0, args('INCR', 'a'));
    aof.append(0, args('INCR', 'b'));
    aof.append(0, args('EXEC'));
    aof.append(0, args('MULTI'));
    aof.append(0, args('INCR', 'c'));
    await aof.close();
    const r = await openAof({ policy: 'no' });
    expect(r.replayed).toEqual(['0:INCR a', '0:INCR b']);
    expect(r.warnings.join()).toMatch(/Revert incomplete MULTI\/EXEC/);
    expect(r.result.truncated?.reason).toBe('incomplete MULTI/EXEC transaction');
    r.aof.append(0, args('SET', 'd', '1'));
    await r.aof.close();
    expect((await openAof()).replayed).toEqual(['0:INCR a', '0:INCR b', '0:SET d 1']);
  });
});

describe('AppendOnlyFile checkpoint inside a transaction', () => {
  // A command of an EXEC waited for the disk and the store checkpointed
  // meanwhile: the checkpoint holds MULTI's first command (page 3, below the
  // cut at 4), not the ones after it (page 4). Replay must apply exactly the
  // rest of the transaction: skipping it whole lost the SADD and RPUSH,
  // applying it whole counted the HINCRBY twice.
  it('replays only the commands of the transaction after the checkpoint position', async () => {
    const { aof } = await openAof({ policy: 'no' });
    aof.append(0, args('MULTI'), 3);
    aof.append(0, args('HINCRBY', 'h', 'n', '1'), 3);
    const recorded = aof.recordCheckpoint(0, 1, 4);
    aof.append(0, args('SADD', 's', 'm0'), 4);
    aof.append(0, args('RPUSH', 'l', '0'), 4);
    aof.append(0, args('EXEC'), 4);
    await recorded;
    aof.append(0, args('MULTI'), 4);
    aof.append(0, args('HINCRBY', 'h', 'n', '1'), 4);
    aof.append(0, args('EXEC'), 4);
    await aof.close();
    const r = await openAof({ policy: 'no' });
    expect(r.replayed).toEqual(['0:SADD s m0', '0:RPUSH l 0', '0:HINCRBY h n 1']);
    expect(r.result).toMatchObject({ applied: 3, skipped: 1 });
    await r.aof.close();
  });

  it('a checkpoint whose position falls inside an open transaction is recorded once its EXEC is in', async () => {
    const { aof } = await openAof({ policy: 'always' });
    aof.append(0, args('MULTI'), 3);
    aof.append(0, args('HINCRBY', 'h', 'n', '1'), 3);
    let recorded = false;
    const record = aof.recordCheckpoint(0, 1, 4).then((e) => {
      recorded = true;
      return e;
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    // No command at page 4 yet: the position is the end, inside the MULTI.
    expect(recorded).toBe(false);
    aof.append(0, args('SADD', 's', 'm0'), 4);
    const exec = aof.append(0, args('EXEC'), 4);
    const entry = await record;
    await exec;
    await aof.close();
    const r = await openAof({ policy: 'no' });
    expect(r.aof.checkpointOf(0)).toEqual(entry);
    expect(r.replayed).toEqual(['0:SADD s m0']);
    await r.aof.close();
  });

  it('a rotation waits for the EXEC of the transaction being appended: a MULTI .. EXEC stays in one file', async () => {
    const { aof } = await openAof({ policy: 'no' });
    aof.append(0, args('MULTI'));
    aof.append(0, args('INCR', 'a'));
    await aof.rotate();
    expect(aof.position().file).toBe(1);
    aof.append(0, args('INCR', 'b'));
    aof.append(0, args('EXEC'));
    expect(aof.position().file).toBe(2);
    aof.append(0, args('INCR', 'c'));
    await aof.close();
    const r = await openAof({ policy: 'no' });
    expect(r.replayed).toEqual(['0:INCR a', '0:INCR b', '0:INCR c']);
    expect(r.result.files).toBe(2);
    await r.aof.close();
  });

  it('a file that ends inside a transaction the checkpoint cut through applies what came after the position', async () => {
    // The EXEC never reached the file (a crash): had the position been
    // recorded, the transaction would be half in the checkpoint. The wait
    // above prevents that; if it timed out, the commands after the
    // position that are in the file are applied rather than dropped.
    const { aof, warnings } = await openAof({ policy: 'no', transactionWaitMs: 20 });
    aof.append(0, args('MULTI'), 3);
    aof.append(0, args('HINCRBY', 'h', 'n', '1'), 3);
    aof.append(0, args('SADD', 's', 'm0'), 4);
    const e = await aof.recordCheckpoint(0, 1, 4);
    expect(e.position.offset).toBeGreaterThan(0);
    expect(warnings.join()).toMatch(/inside a MULTI\/EXEC transaction that has not ended/);
    await aof.close();
    const r = await openAof({ policy: 'no' });
    expect(r.replayed).toEqual(['0:SADD s m0']);
    expect(r.warnings.join()).toMatch(/that a checkpoint holds part of/);
    // The transaction got its EXEC: what comes next is not read as part of it.
    r.aof.append(0, args('SET', 'k', '1'), 4);
    await r.aof.close();
    const again = await openAof({ policy: 'no' });
    expect(again.replayed).toEqual(['0:SADD s m0', '0:SET k 1']);
    await again.aof.close();
  });
});

describe('AppendOnlyFile time stamps', () => {
  it('replays each command with the time it was appended with (#MS: lines, written when the time changes)', async () => {
    const { aof } = await openAof({ policy: 'no' });
    aof.append(0, args('SET', 'k', '5', 'PXAT', '1100'), 0, 1000);
    aof.append(0, args('INCR', 'k'), 0, 1000);
    aof.append(1, args('INCR', 'k'), 0, 1050);
    aof.append(0, args('MULTI'), 0, 1060);
    aof.append(0, args('INCR', 'k'), 0, 1060);
    aof.append(0, args('INCR', 'j'), 0, 1070);
    aof.append(0, args('EXEC'), 0, 1070);
    aof.append(0, args('DEL', 'k'));
    await aof.close();
    const bytes = await readFile(join(dir, 'appendonly.aof.1.incr.aof'), 'latin1');
    // Redis 7's loader skips `#` lines: the file stays a Redis AOF.
    expect(bytes.match(/#MS[^\r]*\r\n/g)).toEqual([
      '#MS:1000\r\n',
      '#MS:1050\r\n',
      '#MS:1060\r\n',
      '#MS:1070\r\n',
    ]);
    const seen: string[] = [];
    const again = await AppendOnlyFile.open({ dir, policy: 'no' });
    opened.push(again);
    await again.replay((db, argv, time) => {
      seen.push(`${db}:${argv.map((a) => a.toString()).join(' ')}@${time}`);
    });
    expect(seen).toEqual([
      '0:SET k 5 PXAT 1100@1000',
      '0:INCR k@1000',
      '1:INCR k@1050',
      '0:INCR k@1060',
      '0:INCR j@1070',
      '0:DEL k@1070',
    ]);
    await again.close();
  });

  it('a stamp cut off at the end of the file is a torn tail', async () => {
    const { aof } = await openAof({ policy: 'no' });
    aof.append(0, args('SET', 'a', '1'), 0, 1000);
    await aof.close();
    const path = join(dir, 'appendonly.aof.1.incr.aof');
    const full = (await stat(path)).size;
    await appendFile(path, '#MS:10');
    const r = await openAof({ policy: 'no' });
    expect(r.replayed).toEqual(['0:SET a 1']);
    expect(r.result.truncated).toMatchObject({ offset: full, bytes: 6 });
    await r.aof.close();
  });
});

describe('AppendOnlyFile FLUSHALL', () => {
  it('replays FLUSHALL as FLUSHDB of each database whose checkpoint is older than it', async () => {
    const { aof } = await openAof({ policy: 'no' });
    await aof.recordCheckpoint(0, 1, 0);
    await aof.recordCheckpoint(1, 1, 0);
    await aof.recordCheckpoint(2, 1, 0);
    aof.append(0, args('SET', 'a', '1'), 0);
    aof.append(0, args('FLUSHALL', 'SYNC'), 0);
    aof.append(1, args('SET', 'b', '1'), 0);
    // db 1's checkpoint came after the FLUSHALL and its SET: it holds them.
    await aof.recordCheckpoint(1, 2, 1);
    aof.append(2, args('SET', 'c', '1'), 0);
    await aof.close();
    const r = await openAof();
    expect(r.replayed).toEqual(['0:SET a 1', '0:FLUSHDB SYNC', '2:FLUSHDB SYNC', '2:SET c 1']);
    await r.aof.close();
  });
});

describe('AOF manifest checksum', () => {
  it('a manifest whose numbers were changed on disk (still valid JSON) is refused; one without a checksum (an older writer) is read', async () => {
    const { aof } = await openAof({ policy: 'no' });
    aof.append(0, args('SET', 'a', '1'));
    await aof.recordCheckpoint(0, 1, 0);
    aof.append(0, args('SET', 'b', '2'));
    await aof.close();
    const path = join(dir, 'appendonly.aof.manifest');
    const good = await readFile(path, 'utf8');
    expect(JSON.parse(good)).toHaveProperty('crc');
    // A changed digit: b's command would be skipped, or an applied one run twice.
    const offset: number = JSON.parse(good).databases['0'].position.offset;
    expect(offset).toBeGreaterThan(0);
    const flipped = good.replace(`"offset": ${offset}`, `"offset": ${offset - 1}`);
    expect(flipped).not.toBe(good);
    await writeFile(path, flipped);
    await expect(openAof()).rejects.toMatchObject({
      code: 'ERR_AOF_MANIFEST',
      message: expect.stringMatching(/checksum does not match its contents/),
    });
    const { crc: _, ...older } = JSON.parse(good);
    await writeFile(path, JSON.stringify(older));
    const r = await openAof();
    expect(r.replayed).toEqual(['0:SET b 2']);
    await r.aof.close();
  });
});

describe('AOF checksums', () => {
  it('a flipped bit inside a value (still a valid command) is found by the #CRC line after it: the start is refused with the file and offset', async () => {
    const { aof } = await openAof({ policy: 'always' });
    await aof.append(0, args('SET', 'a', 'apple'));
    await aof.append(0, args('SET', 'b', 'banana'));
    await aof.close();
    const path = join(dir, 'appendonly.aof.1.incr.aof');
    const bytes = await readFile(path);
    expect(bytes.toString('latin1').match(/#CRC:\d+\r\n/g)).toHaveLength(2);
    const at = bytes.indexOf('banana');
    const firstBatchEnd = bytes.indexOf('\n', bytes.indexOf('#CRC:')) + 1;
    bytes[at]! ^= 0x04; // 'b' -> 'f': "fanana" parses as well as "banana"
    await writeFile(path, bytes);
    await expect(openAof()).rejects.toMatchObject({
      code: 'ERR_AOF_CORRUPT',
      address: firstBatchEnd,
      message: expect.stringMatching(
        new RegExp(`appendonly.aof.1.incr.aof at offset ${firstBatchEnd} \\(checksum mismatch`),
      ),
    });
  });

  it('whole records after the last #CRC line (its line cut off) are applied, and the next line covers them too', async () => {
    const { aof } = await openAof({ policy: 'no' });
    aof.append(0, args('SET', 'a', '1'));
    aof.append(0, args('SET', 'b', '2'));
    await aof.close();
    const path = join(dir, 'appendonly.aof.1.incr.aof');
    const text = await readFile(path, 'latin1');
    await truncate(path, text.lastIndexOf('#CRC:'));
    const r = await openAof({ policy: 'no' });
    expect(r.replayed).toEqual(['0:SET a 1', '0:SET b 2']);
    r.aof.append(0, args('SET', 'c', '3'));
    await r.aof.close();
    expect((await openAof()).replayed).toEqual(['0:SET a 1', '0:SET b 2', '0:SET c 3']);
  });

  it('after a reverted transaction the next #CRC line covers what is left of the batch it was cut from', async () => {
    const { aof } = await openAof({ policy: 'no' });
    aof.append(0, args('SET', 'a', '1'));
    aof.append(0, args('MULTI'));
    aof.append(0, args('INCR', 'n'));
    await aof.close();
    const first = await openAof({ policy: 'no' });
    expect(first.replayed).toEqual(['0:SET a 1']);
    expect(first.warnings.join()).toMatch(/Revert incomplete MULTI\/EXEC/);
    first.aof.append(0, args('SET', 'b', '2'));
    await first.aof.close();
    expect((await openAof()).replayed).toEqual(['0:SET a 1', '0:SET b 2']);
  });
});
