import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { args, FaultyFileSystem, tempDir } from '../test/support.js';
import { readAofFile } from './aof-reader.js';
import { AofWriter } from './aof-writer.js';
import type { AofError } from './errors.js';
import type { AofFileHandle } from './file-system.js';
import type { FsyncPolicy } from './fsync-policy.js';

let dir: string;
let cleanup: () => Promise<void>;
let fs: FaultyFileSystem;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  fs = new FaultyFileSystem();
});
afterEach(() => cleanup());

async function writer(
  policy: FsyncPolicy,
  statuses: (AofError | null)[] = [],
  maxSyncsInFlight = 1,
  preallocateBytes = 0,
) {
  const path = join(dir, 'a.aof');
  const h = await fs.open(path, 'new');
  const w = new AofWriter(1, h, 0, {
    policy,
    retryMs: 10,
    syncIntervalMs: 30,
    maxSyncsInFlight,
    preallocateBytes,
    onStatus: (e) => statuses.push(e),
  });
  return { w, path };
}

async function commandsIn(path: string): Promise<string[]> {
  const out: string[] = [];
  const h: AofFileHandle = await fs.open(path, 'never');
  try {
    await readAofFile(h, {
      onCommand: (db, argv) => {
        out.push(`${db}:${argv.map((a) => a.toString()).join(' ')}`);
      },
    });
  } finally {
    await h.close();
  }
  return out;
}

/** Resolves once `ok()` holds, polling every 10 ms; fails after 10 s. */
async function until(ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('condition not reached in 10 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('AofWriter', () => {
  it('always: a batch settles only after its bytes are written and synced', async () => {
    const { w, path } = await writer('always');
    let release!: () => void;
    fs.syncGate = new Promise((r) => {
      release = r;
    });
    let settled = false;
    const p = w.append(0, args('SET', 'a', '1'))!;
    void p.then(() => {
      settled = true;
    });
    await new Promise((r) => setTimeout(r, 30));
    expect(fs.syncs).toBe(1); // the sync is running...
    expect(settled).toBe(false); // ...and the reply waits for it
    expect((await readFile(path)).length).toBeGreaterThan(0);
    fs.syncGate = null;
    release();
    await p;
    expect(settled).toBe(true);
    await w.close();
    expect(await commandsIn(path)).toEqual(['0:SET a 1']);
  });

  it('always: group commit, one write and one sync per batch, appends during a sync ride the next', async () => {
    const { w, path } = await writer('always');
    let release!: () => void;
    fs.syncGate = new Promise((r) => {
      release = r;
    });
    const first = [];
    for (let i = 0; i < 100; i++) first.push(w.append(0, args('INCR', 'n')));
    expect(new Set(first).size).toBe(1); // one promise per batch
    await new Promise((r) => setTimeout(r, 20));
    expect(fs.writes).toBe(1);
    expect(fs.syncs).toBe(1);
    // While the first sync runs: 300 more commands from "other clients".
    const second = [];
    for (let i = 0; i < 300; i++) {
      second.push(w.append(i % 2, args('INCR', `n${i}`)));
      if (i % 50 === 0) await new Promise((r) => setImmediate(r));
    }
    expect(fs.writes).toBe(1);
    fs.syncGate = null;
    release();
    await Promise.all([...first, ...second]);
    expect(fs.writes).toBe(2);
    expect(fs.syncs).toBe(2);
    expect(w.stats.batches).toBe(2);
    await w.close();
    const cmds = await commandsIn(path);
    expect(cmds.length).toBe(400);
    expect(cmds[100]).toBe('0:INCR n0');
    expect(cmds[101]).toBe('1:INCR n1');
  });

  it('always: a batch written while syncs run gets its own sync at once, up to maxSyncsInFlight', async () => {
    const { w, path } = await writer('always', [], 2);
    let release!: () => void;
    fs.syncGate = new Promise((r) => {
      release = r;
    });
    const batches: Promise<void>[] = [];
    for (let b = 0; b < 3; b++) {
      batches.push(w.append(0, args('SET', `k${b}`, 'v'))!);
      await new Promise((r) => setTimeout(r, 15));
    }
    // Two syncs run at once; the third batch waits for a slot (and gathers what comes meanwhile).
    expect(fs.syncs).toBe(2);
    expect(fs.writes).toBe(2);
    fs.syncGate = null;
    release();
    await Promise.all(batches);
    expect(fs.syncs).toBe(3);
    await w.close();
    expect(await commandsIn(path)).toEqual(['0:SET k0 v', '0:SET k1 v', '0:SET k2 v']);
  });

  it('always: a sync failing while another runs fails both batches; the bytes are rewritten and synced', async () => {
    const { w, path } = await writer('always', [], 2);
    let release!: () => void;
    fs.syncGate = new Promise((r) => {
      release = r;
    });
    fs.failSyncs = true;
    const a = w.append(0, args('SET', 'a', '1'))!;
    await new Promise((r) => setTimeout(r, 15));
    const b = w.append(0, args('SET', 'b', '2'))!;
    await new Promise((r) => setTimeout(r, 15));
    fs.syncGate = null;
    release();
    await expect(a).rejects.toMatchObject({ code: 'ERR_AOF_WRITE' });
    await expect(b).rejects.toMatchObject({ code: 'ERR_AOF_WRITE' });
    fs.failSyncs = false;
    await w.append(0, args('SET', 'c', '3'));
    expect(w.error).toBeNull();
    await w.close();
    expect(await commandsIn(path)).toEqual(['0:SET a 1', '0:SET b 2', '0:SET c 3']);
  });

  it('everysec writes at once and syncs in the background; no never syncs before close', async () => {
    for (const policy of ['everysec', 'no'] as const) {
      fs = new FaultyFileSystem();
      const { w, path } = await writer(policy);
      expect(w.append(3, args('SET', 'k', policy))).toBeUndefined();
      await new Promise((r) => setTimeout(r, 120));
      expect(await commandsIn(path)).toEqual([`3:SET k ${policy}`]);
      if (policy === 'everysec') expect(fs.syncs).toBeGreaterThanOrEqual(1);
      else expect(fs.syncs).toBe(0);
      await w.close();
      expect(fs.syncs).toBeGreaterThanOrEqual(1);
      await cleanup();
      ({ dir, cleanup } = await tempDir());
    }
  });

  it('writeNow writes the appended bytes in the same tick, once (everysec and no)', async () => {
    for (const policy of ['everysec', 'no'] as const) {
      fs = new FaultyFileSystem();
      const { w, path } = await writer(policy);
      w.append(0, args('SET', 'a', '1'));
      w.append(0, args('SET', 'b', '2'));
      expect(w.stats.writes).toBe(0);
      w.writeNow();
      // Written before anything else ran: a reply sent now follows the write(2).
      expect(w.stats.writes).toBe(1);
      expect(w.pendingBytes).toBe(0);
      w.writeNow(); // nothing appended since: no second write
      await new Promise((r) => setImmediate(r));
      expect(w.stats.writes).toBe(1);
      expect(w.stats.batches).toBe(1); // the scheduled write did not run as well
      expect(await commandsIn(path)).toEqual(['0:SET a 1', '0:SET b 2']);
      await w.close();
      await cleanup();
      ({ dir, cleanup } = await tempDir());
    }
  });

  it('setPolicy switches live: no -> always syncs what was written and holds each batch for its sync; -> no answers once written', async () => {
    const { w, path } = await writer('no');
    expect(w.append(0, args('SET', 'a', '1'))).toBeUndefined();
    await until(() => w.pendingBytes === 0);
    expect(fs.syncs).toBe(0);
    w.setPolicy('always');
    expect(w.policy).toBe('always');
    // What `no` left unsynced is synced at once.
    await until(() => fs.syncs === 1);
    const p = w.append(0, args('SET', 'b', '2'));
    expect(p).toBeInstanceOf(Promise);
    await p;
    expect(fs.syncs).toBe(2);
    w.setPolicy('no');
    expect(w.append(0, args('SET', 'c', '3'))).toBeUndefined();
    await until(() => w.pendingBytes === 0);
    // No timer: a `no` file is never synced before close, whatever came before.
    await new Promise((r) => setTimeout(r, 100));
    expect(fs.syncs).toBe(2);
    w.setPolicy('everysec');
    expect(w.append(0, args('SET', 'd', '4'))).toBeUndefined();
    await until(() => fs.syncs === 3);
    await w.close();
    expect(await commandsIn(path)).toEqual(['0:SET a 1', '0:SET b 2', '0:SET c 3', '0:SET d 4']);
  });

  it('a failing write rejects the batch, reports the error, keeps the bytes and succeeds once the disk recovers', async () => {
    const statuses: (AofError | null)[] = [];
    const { w, path } = await writer('always', statuses);
    await w.append(0, args('SET', 'a', '1'));
    fs.failWrites = 'partial';
    const failed = w.append(0, args('SET', 'b', '2'.repeat(100)))!;
    await expect(failed).rejects.toMatchObject({ code: 'ERR_AOF_WRITE' });
    expect(statuses.length).toBe(1);
    expect(statuses[0]?.message).toContain('No space left on device');
    expect(w.error).not.toBeNull();
    // Still failing: a command appended meanwhile waits for the retry, which fails too.
    fs.failWrites = 'enospc';
    const later = w.append(0, args('SET', 'c', '3'))!;
    await expect(later).rejects.toMatchObject({ code: 'ERR_AOF_WRITE' });
    fs.failWrites = 'no';
    await w.append(0, args('SET', 'd', '4'));
    expect(statuses).toEqual([statuses[0], null]);
    expect(w.error).toBeNull();
    await w.close();
    // The half-written record was completed in place: nothing lost, nothing doubled.
    expect(await commandsIn(path)).toEqual([
      '0:SET a 1',
      `0:SET b ${'2'.repeat(100)}`,
      '0:SET c 3',
      '0:SET d 4',
    ]);
  });

  it('a failing sync rejects the batch and rewrites its bytes before the next sync counts', async () => {
    const statuses: (AofError | null)[] = [];
    const { w, path } = await writer('always', statuses);
    fs.failSyncs = true;
    await expect(w.append(0, args('SET', 'x', '1'))!).rejects.toMatchObject({
      code: 'ERR_AOF_WRITE',
    });
    expect(statuses[0]?.message).toContain('Input/output error');
    const writesBefore = fs.writes;
    fs.failSyncs = false;
    await w.append(0, args('SET', 'y', '2'));
    expect(fs.writes).toBeGreaterThan(writesBefore);
    expect(statuses.at(-1)).toBeNull();
    await w.close();
    expect(await commandsIn(path)).toEqual(['0:SET x 1', '0:SET y 2']);
  });

  it('everysec: a failing background sync is reported until a sync succeeds', async () => {
    const statuses: (AofError | null)[] = [];
    const { w } = await writer('everysec', statuses);
    fs.failSyncs = true;
    w.append(0, args('SET', 'x', '1'));
    // Waits for the background syncs (not a timing assertion: the machine may be loaded).
    await until(() => statuses.length > 0);
    expect(statuses.length).toBe(1);
    expect(w.error?.code).toBe('ERR_AOF_WRITE');
    fs.failSyncs = false;
    await until(() => statuses.at(-1) === null);
    expect(statuses.at(-1)).toBeNull();
    expect(w.error).toBeNull();
    await w.close();
  });

  it('switchTo continues in a new file after syncing the old one; positions follow', async () => {
    const { w, path } = await writer('no');
    w.append(0, args('SET', 'a', '1'));
    const before = w.position();
    expect(before.file).toBe(1);
    const h2 = await fs.open(join(dir, 'b.aof'), 'new');
    w.switchTo(2, h2);
    expect(w.position()).toEqual({ file: 2, offset: 0 });
    w.append(0, args('SET', 'b', '2'));
    await w.drain();
    expect(fs.syncs).toBe(1); // the old file, before it was closed
    await w.close();
    expect(await commandsIn(path)).toEqual(['0:SET a 1']);
    // The new file starts with its own SELECT.
    expect(await commandsIn(join(dir, 'b.aof'))).toEqual(['0:SET b 2']);
    expect((await readFile(join(dir, 'b.aof'))).toString()).toMatch(/^\*2\r\n\$6\r\nSELECT/);
  });

  it('refuses appends after close', async () => {
    const { w } = await writer('no');
    await w.close();
    expect(() => w.append(0, args('SET', 'a', '1'))).toThrow(/closed/);
  });

  it('preallocates zeros ahead of the data: never over data, read as the end, cut off at close', async () => {
    const chunk = 64 * 1024;
    const { w, path } = await writer('always', [], 3, chunk);
    const value = 'v'.repeat(200);
    const expected: string[] = [];
    // Batches of appends while the zeros are being written, a slice per turn.
    for (let b = 0; b < 40; b++) {
      const batch: Promise<void>[] = [];
      for (let i = 0; i < 20; i++) {
        batch.push(w.append(0, args('SET', `k${b}:${i}`, value))!);
        expected.push(`0:SET k${b}:${i} ${value}`);
      }
      await Promise.all(batch);
    }
    const data = w.currentSize;
    expect(data).toBeGreaterThan(2 * chunk); // several chunks were added as the data grew
    const onDisk = (await readFile(path)).length;
    expect(onDisk).toBeGreaterThan(data); // zeros ahead
    expect((await readFile(path)).subarray(data).every((b) => b === 0)).toBe(true);
    // What a crash now would leave: every command, then a zero-filled end.
    const h = await fs.open(path, 'never');
    const seen: string[] = [];
    const r = await readAofFile(h, {
      onCommand: (db, argv) => void seen.push(`${db}:${argv.map((a) => a.toString()).join(' ')}`),
    });
    await h.close();
    expect(seen).toEqual(expected);
    expect(r.torn?.reason).toBe('zero-filled tail');
    expect(r.validBytes).toBe(data);
    await w.close();
    expect((await readFile(path)).length).toBe(data);
    expect(await commandsIn(path)).toEqual(expected);
  });
});
