import assert from 'node:assert/strict';
import { isStrataError } from '../errors.js';
import { Prng } from '../prng.js';
import { assertBytes, filled, rejectsWithCode } from './assertions.js';
import type { ConformanceCase } from './conformance-case.js';
import { Session, SMALL } from './session.js';

export const lifecycleCases: ConformanceCase[] = [
  {
    name: 'reopen sees the data, begin and end',
    needsReopen: true,
    run: (factory, { seed }) =>
      Session.run(factory, SMALL, async (session) => {
        const seg = session.device.segmentSize;
        const data = new Prng(seed).fill(new Uint8Array(3 * seg + 100));
        // Nothing below segment 2: a hole at the start must survive too.
        await session.device.write(2 * seg + 50, data);
        await session.device.sync();
        const end = session.device.endAddress;
        assert.equal(end, 5 * seg + 150);
        let device = await session.reopen();
        assert.equal(device.beginAddress, 0, 'begin after reopen');
        assert.equal(device.endAddress, end, 'end after reopen');
        const into = filled(end, 0xee);
        assert.equal(await device.read(0, into), end);
        assertBytes(into.subarray(0, 2 * seg + 50), new Uint8Array(2 * seg + 50), 'leading hole');
        assertBytes(into.subarray(2 * seg + 50), data, 'data after reopen');

        await device.truncateUntil(3 * seg + 10);
        assert.equal(device.beginAddress, 3 * seg);
        device = await session.reopen();
        assert.equal(device.beginAddress, 3 * seg, 'begin after truncate and reopen');
        assert.equal(device.endAddress, end, 'end after truncate and reopen');
        await rejectsWithCode(
          device.read(3 * seg - 1, new Uint8Array(1)),
          'ERR_ADDRESS_OUT_OF_RANGE',
        );
        const tail = new Uint8Array(end - 3 * seg);
        assert.equal(await device.read(3 * seg, tail), tail.length);
        assertBytes(tail, data.subarray(seg - 50), 'data above begin after reopen');

        await device.truncateUntil(10 * seg + 1);
        device = await session.reopen();
        assert.equal(device.beginAddress, 10 * seg, 'begin after truncating past the end');
        assert.equal(device.endAddress, 10 * seg, 'end raised to begin');
        await device.write(10 * seg, filled(10, 4));
        device = await session.reopen();
        assert.equal(device.endAddress, 10 * seg + 10);
      }),
  },
  {
    name: 'truncateUntil drops whole segments; IO below begin rejects with ERR_ADDRESS_OUT_OF_RANGE',
    run: (factory) =>
      Session.run(factory, SMALL, async ({ device }) => {
        const seg = device.segmentSize;
        for (let s = 0; s < 4; s++) await device.write(s * seg, filled(seg, s + 1));
        await device.truncateUntil(2 * seg + 100);
        assert.equal(
          device.beginAddress,
          2 * seg,
          'begin is the start of the segment holding the address',
        );
        assert.equal(device.endAddress, 4 * seg);
        const e = await rejectsWithCode(
          device.read(seg, new Uint8Array(10)),
          'ERR_ADDRESS_OUT_OF_RANGE',
        );
        assert.equal(e.address, seg, 'error carries the address');
        await rejectsWithCode(
          device.read(2 * seg - 1, new Uint8Array(2)),
          'ERR_ADDRESS_OUT_OF_RANGE',
        );
        await rejectsWithCode(
          device.write(0, new Uint8Array(1)),
          'ERR_ADDRESS_OUT_OF_RANGE',
          'write below begin',
        );
        const kept = new Uint8Array(2 * seg);
        assert.equal(await device.read(2 * seg, kept), 2 * seg);
        assertBytes(
          kept,
          new Uint8Array([...filled(seg, 3), ...filled(seg, 4)]),
          'segments kept whole',
        );
        await device.truncateUntil(seg);
        assert.equal(device.beginAddress, 2 * seg, 'truncating lower is a no-op');
        await device.truncateUntil(2 * seg + 5);
        assert.equal(
          device.beginAddress,
          2 * seg,
          'truncating inside the begin segment is a no-op',
        );
        await device.truncateUntil(7 * seg + 5);
        assert.equal(device.beginAddress, 7 * seg, 'truncating past the end');
        assert.equal(device.endAddress, 7 * seg, 'end is raised to begin');
        assert.equal(await device.read(7 * seg, new Uint8Array(10)), 0);
        await device.write(7 * seg, filled(10, 8));
        const back = new Uint8Array(10);
        assert.equal(await device.read(7 * seg, back), 10);
        assertBytes(back, filled(10, 8), 'write after truncation');
        await rejectsWithCode(device.truncateUntil(-1), 'ERR_ADDRESS_OUT_OF_RANGE');
      }),
  },
  {
    name: 'truncation lets in-flight IO finish and rejects queued IO below the new begin',
    run: (factory) =>
      Session.run(factory, { ...SMALL, maxInFlight: 2 }, async ({ device }) => {
        const seg = device.segmentSize;
        await device.write(0, filled(2 * seg, 5));
        const reads = Array.from({ length: 20 }, () => {
          const into = new Uint8Array(seg);
          return device.read(0, into).then((n) => ({ n, into }));
        });
        const truncation = device.truncateUntil(seg);
        const results = await Promise.allSettled(reads);
        await truncation;
        for (const r of results) {
          if (r.status === 'fulfilled') {
            assert.equal(r.value.n, seg);
            assertBytes(r.value.into, filled(seg, 5), 'a read that completed saw the data');
          } else {
            assert.ok(
              isStrataError(r.reason, 'ERR_ADDRESS_OUT_OF_RANGE'),
              `unexpected ${r.reason}`,
            );
          }
        }
        await rejectsWithCode(device.read(0, new Uint8Array(1)), 'ERR_ADDRESS_OUT_OF_RANGE');
        assert.equal(device.stats().inFlight, 0);
      }),
  },
  {
    name: 'close: later operations reject with ERR_DEVICE_CLOSED; closing twice is fine',
    run: (factory) =>
      Session.run(factory, SMALL, async ({ device }) => {
        await device.write(0, filled(100, 1));
        await device.close();
        assert.equal(device.closed, true);
        await device.close();
        await rejectsWithCode(device.read(0, new Uint8Array(10)), 'ERR_DEVICE_CLOSED', 'read');
        await rejectsWithCode(device.write(0, new Uint8Array(10)), 'ERR_DEVICE_CLOSED', 'write');
        await rejectsWithCode(device.sync(), 'ERR_DEVICE_CLOSED', 'sync');
        await rejectsWithCode(device.truncateUntil(0), 'ERR_DEVICE_CLOSED', 'truncateUntil');
        await Promise.all([device.close(), device.close()]);
      }),
  },
  {
    name: 'close with operations in flight: each completes or rejects cleanly',
    run: (factory) =>
      Session.run(factory, { ...SMALL, maxInFlight: 4 }, async (session) => {
        const { device } = session;
        const writes = Array.from({ length: 100 }, (_, i) =>
          device.write(i * 64, filled(64, i + 1)),
        );
        const closing = device.close();
        const results = await Promise.allSettled(writes);
        await closing;
        let completed = 0;
        for (const r of results) {
          if (r.status === 'fulfilled') completed++;
          else assert.ok(isStrataError(r.reason, 'ERR_DEVICE_CLOSED'), `unexpected ${r.reason}`);
        }
        assert.ok(completed >= 1, 'operations already in flight complete');
        assert.ok(completed < 100, 'queued operations are rejected');
        assert.equal(device.stats().inFlight, 0);
        assert.equal(device.stats().queued, 0);
        if (session.canReopen) {
          const reopened = await session.reopen();
          for (let i = 0; i < 100; i++) {
            if (results[i]!.status !== 'fulfilled') continue;
            const into = new Uint8Array(64);
            assert.equal(await reopened.read(i * 64, into), 64);
            assertBytes(into, filled(64, i + 1), `write ${i} completed before close`);
          }
        }
      }),
  },
  {
    name: 'sync runs alongside IO and covers completed writes',
    run: (factory) =>
      Session.run(factory, SMALL, async (session) => {
        await session.device.sync();
        const device = session.device;
        const ops: Promise<unknown>[] = [];
        for (let i = 0; i < 40; i++) {
          ops.push(device.write(i * 1000, filled(1000, i)));
          if (i % 10 === 0) ops.push(device.sync());
        }
        await Promise.all(ops);
        await device.sync();
        assert.equal(device.stats().syncs, 6);
        if (session.canReopen) {
          const reopened = await session.reopen();
          assert.equal(reopened.endAddress, 40_000);
          const into = new Uint8Array(1000);
          assert.equal(await reopened.read(39_000, into), 1000);
          assertBytes(into, filled(1000, 39), 'synced data');
        }
      }),
  },
];
