import { existsSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IoError, isStrataError } from './errors.js';
import { FileDevice } from './file-device.js';

let dir = '';

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'strata-file-device-'));
});

afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

const SEG = 4096;

/** File descriptors of this process open on files under `path` (Linux only). */
function fdsInto(dirPath: string): number | undefined {
  if (!existsSync('/proc/self/fd')) return undefined;
  const path = realpathSync(dirPath);
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith(path)) n++;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

describe('FileDevice', () => {
  it('stores segment n in <dir>/<name>.<n>, creating files and the directory lazily', async () => {
    const sub = join(dir, 'a', 'b');
    const device = new FileDevice({ dir: sub, name: 'log', segmentSize: SEG });
    expect(existsSync(sub)).toBe(false);
    expect(await device.read(0, new Uint8Array(10))).toBe(0);
    await device.write(10, new Uint8Array([1, 2, 3]));
    await device.write(2 * SEG + 5, new Uint8Array([4, 5]));
    expect((await readdir(sub)).sort()).toEqual(['log.0', 'log.2']);
    expect((await stat(join(sub, 'log.0'))).size).toBe(13);
    expect((await stat(join(sub, 'log.2'))).size).toBe(7);
    expect(await device.read(SEG, new Uint8Array(SEG))).toBe(SEG); // a hole: no file
    expect((await readdir(sub)).sort()).toEqual(['log.0', 'log.2']);
    await device.close();
  });

  it('writes across a boundary land in both files at the right offsets', async () => {
    const device = new FileDevice({ dir, name: 'x', segmentSize: SEG });
    const data = new Uint8Array(SEG).map((_, i) => i & 0xff);
    await device.write(SEG / 2, data);
    await device.close();
    const f0 = await open(join(dir, 'x.0'));
    const f1 = await open(join(dir, 'x.1'));
    const a = Buffer.alloc(SEG / 2);
    const b = Buffer.alloc(SEG / 2);
    await f0.read(a, 0, a.length, SEG / 2);
    await f1.read(b, 0, b.length, 0);
    await f0.close();
    await f1.close();
    expect(Buffer.concat([a, b]).equals(Buffer.from(data))).toBe(true);
  });

  it('truncateUntil unlinks whole segment files and keeps the begin segment as a marker', async () => {
    const device = new FileDevice({ dir, name: 'log', segmentSize: SEG });
    for (let s = 0; s < 4; s++) await device.write(s * SEG, new Uint8Array(SEG).fill(s));
    await device.truncateUntil(2 * SEG + 1);
    expect((await readdir(dir)).sort()).toEqual(['log.2', 'log.3']);
    await device.truncateUntil(9 * SEG);
    expect((await readdir(dir)).sort()).toEqual(['log.9']);
    expect((await stat(join(dir, 'log.9'))).size).toBe(0);
    await device.close();
    const reopened = new FileDevice({ dir, name: 'log', segmentSize: SEG });
    expect(reopened.beginAddress).toBe(9 * SEG);
    expect(reopened.endAddress).toBe(9 * SEG);
    await reopened.close();
  });

  it('caches handles and close() releases every one of them', async () => {
    const device = new FileDevice({ dir, name: 'log', segmentSize: SEG });
    for (let i = 0; i < 50; i++) await device.write((i % 5) * SEG, new Uint8Array(100));
    for (let i = 0; i < 50; i++) await device.read((i % 5) * SEG, new Uint8Array(100));
    expect(device.openFiles).toBe(5);
    expect(fdsInto(dir)).toBe(existsSync('/proc/self/fd') ? 5 : undefined);
    await device.close();
    expect(device.openFiles).toBe(0);
    expect(fdsInto(dir)).toBe(existsSync('/proc/self/fd') ? 0 : undefined);
  });

  it('sync datasyncs exactly the segments written since the last sync', async () => {
    const probe = await open(join(dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { datasync(): Promise<void> };
    await probe.close();
    const datasync = vi.spyOn(proto, 'datasync');
    const device = new FileDevice({ dir, name: 'log', segmentSize: SEG });
    await device.write(0, new Uint8Array(10));
    await device.write(SEG - 5, new Uint8Array(10)); // segments 0 and 1
    await device.write(3 * SEG, new Uint8Array(10));
    await device.read(2 * SEG, new Uint8Array(10));
    await device.sync();
    expect(datasync).toHaveBeenCalledTimes(3);
    await device.sync();
    expect(datasync).toHaveBeenCalledTimes(3);
    await device.write(3 * SEG, new Uint8Array(10));
    await device.sync();
    expect(datasync).toHaveBeenCalledTimes(4);
    await device.close();
  });

  it('a failed datasync keeps the segment dirty for the next sync', async () => {
    const probe = await open(join(dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { datasync(): Promise<void> };
    await probe.close();
    const device = new FileDevice({ dir, name: 'log', segmentSize: SEG });
    await device.write(0, new Uint8Array(10));
    const failure = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    const datasync = vi.spyOn(proto, 'datasync').mockRejectedValueOnce(failure);
    const e = await device.sync().catch((err: unknown) => err);
    expect(e).toBeInstanceOf(IoError);
    expect(e).toMatchObject({ code: 'ERR_IO', osCode: 'EIO', segment: 0, cause: failure });
    await device.sync();
    expect(datasync).toHaveBeenCalledTimes(2);
    await device.close();
  });

  it('wraps OS errors in IoError with osCode, address, segment and cause', async () => {
    const device = new FileDevice({ dir, name: 'log', segmentSize: SEG });
    await device.write(2 * SEG, new Uint8Array(10));
    await mkdir(join(dir, 'log.1')); // a directory where segment 1's file should be
    const w = await device.write(SEG + 100, new Uint8Array(10)).catch((e: unknown) => e);
    expect(w).toBeInstanceOf(IoError);
    expect(w).toMatchObject({ code: 'ERR_IO', osCode: 'EISDIR', segment: 1, address: SEG + 100 });
    expect((w as IoError).cause).toMatchObject({ code: 'EISDIR' });
    const r = await device.read(SEG, new Uint8Array(10)).catch((e: unknown) => e);
    expect(r).toMatchObject({ code: 'ERR_IO', osCode: 'EISDIR', segment: 1, address: SEG });
    expect(device.stats().errors).toBe(2);
    expect(await device.read(2 * SEG, new Uint8Array(10))).toBe(10); // other segments still work
    await device.close();
  });

  it('recovers begin and end from the files present and ignores unrelated files', async () => {
    await writeFile(join(dir, 'log.3'), Buffer.alloc(100, 1));
    await writeFile(join(dir, 'log.5'), Buffer.alloc(10, 2));
    await writeFile(join(dir, 'log.01'), 'x');
    await writeFile(join(dir, 'log.tmp'), 'x');
    await writeFile(join(dir, 'other.0'), 'x');
    await mkdir(join(dir, 'log.1'));
    const device = new FileDevice({ dir, name: 'log', segmentSize: SEG });
    expect(device.beginAddress).toBe(3 * SEG);
    expect(device.endAddress).toBe(5 * SEG + 10);
    const into = new Uint8Array(5);
    expect(await device.read(5 * SEG + 8, into)).toBe(2);
    expect([...into.subarray(0, 2)]).toEqual([2, 2]);
    await device.close();
  });

  it('refuses a directory written with a larger segment size', async () => {
    await writeFile(join(dir, 'log.0'), Buffer.alloc(SEG + 1));
    expect(() => new FileDevice({ dir, name: 'log', segmentSize: SEG })).toThrow(/segment size/);
  });

  it('validates the name, and open() creates the directory', async () => {
    for (const name of ['', 'a/b', '..', 'a\\b']) {
      let error: unknown;
      try {
        new FileDevice({ dir, name });
      } catch (e) {
        error = e;
      }
      expect(isStrataError(error, 'ERR_INVALID_ARGUMENT')).toBe(true);
    }
    const sub = join(dir, 'made');
    const device = await FileDevice.open({ dir: sub, name: 'log' });
    expect(existsSync(sub)).toBe(true);
    expect(device.segmentSize).toBe(2 ** 30);
    await device.close();
  });
});
