import assert from 'node:assert/strict';
import { assertBytes, filled, rejectsWithCode } from './assertions.js';
import type { ConformanceCase } from './conformance-case.js';
import { runRandomWorkload } from './random-workload.js';
import { Session, SMALL } from './session.js';

const GiB = 2 ** 30;

export const dataCases: ConformanceCase[] = [
  {
    name: 'starts empty',
    run: (factory) =>
      Session.run(factory, SMALL, async ({ device }) => {
        assert.equal(device.beginAddress, 0);
        assert.equal(device.endAddress, 0);
        const into = filled(16, 0xee);
        assert.equal(await device.read(0, into), 0, 'nothing to read');
        assertBytes(into, filled(16, 0xee), 'buffer untouched');
        assert.equal(await device.read(123_456, into), 0);
      }),
  },
  {
    name: 'write then read round-trips, including empty IO',
    run: (factory) =>
      Session.run(factory, SMALL, async ({ device }) => {
        const data = new Uint8Array(300).map((_, i) => i & 0xff);
        await device.write(10, data);
        assert.equal(device.endAddress, 310);
        const into = new Uint8Array(300);
        assert.equal(await device.read(10, into), 300);
        assertBytes(into, data, 'round trip');
        const middle = new Uint8Array(100);
        assert.equal(await device.read(110, middle), 100);
        assertBytes(middle, data.subarray(100, 200), 'read from the middle');
        await device.write(1000, new Uint8Array(0));
        assert.equal(device.endAddress, 310, 'an empty write does not move the end');
        assert.equal(await device.read(20, new Uint8Array(0)), 0, 'an empty read');
        await device.write(10, filled(5, 7));
        assert.equal(device.endAddress, 310, 'overwriting below the end keeps it');
        assert.equal(await device.read(10, into), 300);
        assertBytes(into.subarray(0, 6), Uint8Array.of(7, 7, 7, 7, 7, 5), 'overwrite');
      }),
  },
  {
    name: 'random reads and writes match a byte model',
    run: (factory, { seed, operations }) =>
      Session.run(factory, SMALL, async ({ device }) => {
        const model = await runRandomWorkload(device, seed, operations, 64 * 1024, 1);
        assert.equal(device.endAddress, model.end, 'end address');
        const all = new Uint8Array(model.end);
        assert.equal(await device.read(0, all), model.end);
        assertBytes(all, model.bytes.subarray(0, model.end), 'whole device');
      }),
  },
  {
    name: 'random aligned reads and writes (alignment 512) match a byte model',
    run: (factory, { seed, operations }) =>
      Session.run(factory, { ...SMALL, alignment: 512 }, async ({ device }) => {
        const model = await runRandomWorkload(device, seed + 1, operations, 96 * 1024, 512);
        assert.equal(device.endAddress, model.end, 'end address');
      }),
  },
  {
    name: 'IO crossing segment boundaries is split correctly',
    run: (factory, { seed }) =>
      Session.run(factory, SMALL, async ({ device }) => {
        const seg = device.segmentSize;
        const data = new Uint8Array(3 * seg + seg / 2);
        for (let i = 0; i < data.length; i++) data[i] = (i * 31 + seed) & 0xff;
        const base = seg / 2 + 7; // starts mid segment 0, ends mid segment 4
        await device.write(base, data);
        assert.equal(device.endAddress, base + data.length);
        const whole = new Uint8Array(data.length);
        assert.equal(await device.read(base, whole), data.length);
        assertBytes(whole, data, 'whole');
        // Pieces with other boundaries than the write's.
        for (const [from, length] of [
          [seg - 1, 2],
          [seg, seg],
          [2 * seg - 100, seg + 200],
          [base + 1, 3 * seg],
        ] as const) {
          const into = new Uint8Array(length);
          assert.equal(await device.read(from, into), length);
          assertBytes(
            into,
            data.subarray(from - base, from - base + length),
            `read ${from}+${length}`,
          );
        }
        // A write ending exactly on a boundary, then one starting on it.
        await device.write(5 * seg - 10, filled(10, 0xa1));
        await device.write(5 * seg, filled(10, 0xb2));
        const edge = new Uint8Array(20);
        assert.equal(await device.read(5 * seg - 10, edge), 20);
        assertBytes(edge, new Uint8Array([...filled(10, 0xa1), ...filled(10, 0xb2)]), 'edge');
      }),
  },
  {
    name: 'reads at and after the end are short',
    run: (factory) =>
      Session.run(factory, SMALL, async ({ device }) => {
        await device.write(1000, filled(100, 9));
        assert.equal(device.endAddress, 1100);
        const into = filled(100, 0xee);
        assert.equal(await device.read(1050, into), 50, 'crossing the end');
        assertBytes(into.subarray(0, 50), filled(50, 9), 'bytes before the end');
        assertBytes(into.subarray(50), filled(50, 0xee), 'bytes past the count untouched');
        assert.equal(await device.read(1100, into), 0, 'at the end');
        assert.equal(await device.read(9000, into), 0, 'past the end');
        const big = new Uint8Array(3 * device.segmentSize);
        assert.equal(await device.read(0, big), 1100, 'a large read stops at the end');
      }),
  },
  {
    name: 'holes read as zeros',
    run: (factory) =>
      Session.run(factory, SMALL, async ({ device }) => {
        const seg = device.segmentSize;
        await device.write(10, filled(10, 1));
        await device.write(100, filled(10, 2));
        await device.write(5 * seg + 5, filled(10, 3));
        const into = filled(5 * seg + 15, 0xee);
        assert.equal(await device.read(0, into), 5 * seg + 15);
        const expected = new Uint8Array(5 * seg + 15);
        expected.fill(1, 10, 20);
        expected.fill(2, 100, 110);
        expected.fill(3, 5 * seg + 5, 5 * seg + 15);
        assertBytes(into, expected, 'holes within and between segments');
        const gap = filled(2 * seg, 0xee);
        assert.equal(await device.read(2 * seg, gap), 2 * seg);
        assertBytes(gap, new Uint8Array(2 * seg), 'segments never written');
      }),
  },
  {
    name: 'large addresses: 1 GiB segments, boundary crossing and the 2^48 limit',
    run: (factory) =>
      Session.run(factory, { ...SMALL, segmentSize: GiB }, async ({ device }) => {
        const data = new Uint8Array(64 * 1024).map((_, i) => (i * 7) & 0xff);
        await device.write(GiB - 32 * 1024, data);
        const into = new Uint8Array(data.length);
        assert.equal(await device.read(GiB - 32 * 1024, into), data.length);
        assertBytes(into, data, 'across the 1 GiB boundary');
        const top = 2 ** 48 - 4096;
        await device.write(top, data.subarray(0, 4096));
        assert.equal(device.endAddress, 2 ** 48);
        const back = new Uint8Array(4096);
        assert.equal(await device.read(top, back), 4096);
        assertBytes(back, data.subarray(0, 4096), 'at the top of the address space');
        await rejectsWithCode(device.write(top, new Uint8Array(4097)), 'ERR_ADDRESS_OUT_OF_RANGE');
        const low = filled(4096, 0xee);
        assert.equal(await device.read(0, low), 4096);
        assertBytes(low, new Uint8Array(4096), 'hole at the start');
      }),
  },
];
