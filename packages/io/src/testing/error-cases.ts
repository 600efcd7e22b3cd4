import assert from 'node:assert/strict';
import { TornWriteError } from '../errors.js';
import { FaultDevice } from '../fault-device.js';
import { assertBytes, filled, rejectsWithCode } from './assertions.js';
import type { ConformanceCase } from './conformance-case.js';
import { Session, SMALL } from './session.js';

export const errorCases: ConformanceCase[] = [
  {
    name: 'alignment is enforced with ERR_INVALID_ARGUMENT',
    run: (factory) =>
      Session.run(factory, { ...SMALL, alignment: 512 }, async ({ device }) => {
        await rejectsWithCode(
          device.write(100, new Uint8Array(512)),
          'ERR_INVALID_ARGUMENT',
          'address',
        );
        await rejectsWithCode(
          device.write(512, new Uint8Array(100)),
          'ERR_INVALID_ARGUMENT',
          'length',
        );
        await rejectsWithCode(
          device.read(1, new Uint8Array(512)),
          'ERR_INVALID_ARGUMENT',
          'read address',
        );
        await rejectsWithCode(
          device.read(0, new Uint8Array(513)),
          'ERR_INVALID_ARGUMENT',
          'read length',
        );
        await device.write(512, filled(1024, 3));
        const into = new Uint8Array(1024);
        assert.equal(await device.read(512, into), 1024);
        assertBytes(into, filled(1024, 3), 'aligned IO works');
        assert.equal(device.endAddress, 1536, 'rejected writes stored nothing');
        assert.equal(device.stats().errors, 4);
      }),
  },
  {
    name: 'addresses outside [0, 2^48) reject',
    run: (factory) =>
      Session.run(factory, SMALL, async ({ device }) => {
        const one = new Uint8Array(1);
        await rejectsWithCode(device.read(-1, one), 'ERR_ADDRESS_OUT_OF_RANGE', 'negative');
        await rejectsWithCode(
          device.write(-4096, one),
          'ERR_ADDRESS_OUT_OF_RANGE',
          'negative write',
        );
        await rejectsWithCode(device.read(2 ** 48, one), 'ERR_ADDRESS_OUT_OF_RANGE', '2^48');
        await rejectsWithCode(
          device.write(2 ** 48 - 1, new Uint8Array(2)),
          'ERR_ADDRESS_OUT_OF_RANGE',
          'crossing 2^48',
        );
        await rejectsWithCode(device.read(1.5, one), 'ERR_INVALID_ARGUMENT', 'fractional');
        await rejectsWithCode(device.write(Number.NaN, one), 'ERR_INVALID_ARGUMENT', 'NaN');
        assert.equal(device.endAddress, 0, 'nothing was written');
      }),
  },
  {
    name: 'injected errors propagate with code, address and segment, and the device recovers',
    run: (factory, { seed }) =>
      Session.run(factory, SMALL, async (session) => {
        const seg = session.device.segmentSize;
        const device = new FaultDevice(session.device, { seed });
        await device.write(0, filled(3 * seg, 1));
        const fault = device.addFault({ on: 'write', range: { from: seg + 100, to: seg + 200 } });
        const e = await rejectsWithCode(device.write(seg, filled(seg, 2)), 'ERR_INJECTED_FAULT');
        assert.equal(e.address, seg + 100, 'address of the faulty range');
        assert.equal(e.segment, 1);
        await device.write(2 * seg, filled(10, 3));
        fault.remove();
        await device.write(seg, filled(seg, 2));
        const into = new Uint8Array(seg);
        assert.equal(await device.read(seg, into), seg);
        assertBytes(into, filled(seg, 2), 'device works after the fault is removed');

        device.addFault({ on: 'read', nth: 2 });
        await device.read(0, new Uint8Array(10));
        const r = await rejectsWithCode(
          device.read(2 * seg + 5, new Uint8Array(10)),
          'ERR_INJECTED_FAULT',
        );
        assert.equal(r.address, 2 * seg + 5);
        assert.equal(r.segment, 2);
        await device.read(0, new Uint8Array(10));

        device.addFault({ on: 'sync', code: 'ERR_IO', osCode: 'EIO' });
        const s = await rejectsWithCode(device.sync(), 'ERR_IO');
        assert.equal((s as { osCode?: string }).osCode, 'EIO');
        device.clearFaults();
        await device.sync();
        assert.equal(device.stats().errors, 3);
        assert.equal(session.device.stats().errors, 0, 'injected faults never reach the device');
        await rejectsWithCode(device.write(2 ** 48, new Uint8Array(1)), 'ERR_ADDRESS_OUT_OF_RANGE');
        await device.close();
        assert.equal(session.device.closed, true, 'closing the wrapper closes the device');
      }),
  },
  {
    name: 'a torn write persists a prefix, rejects with ERR_TORN_WRITE, and the device keeps working',
    run: (factory, { seed }) =>
      Session.run(factory, SMALL, async (session) => {
        const seg = session.device.segmentSize;
        const device = new FaultDevice(session.device, { seed, closeInner: false });
        await device.write(0, filled(2 * seg, 1));
        device.addFault({ effect: 'torn-write', persist: seg + 10, nth: 1 });
        const e = await rejectsWithCode(device.write(100, filled(seg * 1.5, 9)), 'ERR_TORN_WRITE');
        assert.ok(e instanceof TornWriteError);
        assert.equal(e.bytesPersisted, seg + 10);
        assert.equal(e.address, 100);
        const into = new Uint8Array(2 * seg);
        assert.equal(await session.device.read(0, into), 2 * seg);
        const expected = filled(2 * seg, 1);
        expected.fill(9, 100, 100 + seg + 10);
        assertBytes(into, expected, 'prefix persisted, the rest unchanged');
        await device.write(100, filled(seg * 1.5, 9));
        assert.equal(await session.device.read(0, into), 2 * seg);
        expected.fill(9, 100, 100 + seg * 1.5);
        assertBytes(into, expected, 'retry succeeds');
        await device.close();
        assert.equal(session.device.closed, false, 'closeInner: false leaves the device open');
      }),
  },
];
