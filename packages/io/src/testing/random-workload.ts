import type { Device } from '../device.js';
import { Prng } from '../prng.js';
import { assertBytes } from './assertions.js';
import { ByteModel } from './byte-model.js';

interface Range {
  address: number;
  length: number;
}

function overlaps(a: Range, b: Range): boolean {
  return a.address < b.address + b.length && b.address < a.address + a.length;
}

/**
 * Runs `operations` random reads and writes against `device` and a byte
 * model, in batches of up to 8 concurrent operations: a batch is all reads
 * (which may overlap) or all writes (which may not, so the outcome is
 * defined). Sizes range from empty to several segments; addresses and
 * lengths are multiples of `unit`. Every read is checked against the model.
 */
export async function runRandomWorkload(
  device: Device,
  seed: number,
  operations: number,
  space: number,
  unit: number,
): Promise<ByteModel> {
  const prng = new Prng(seed);
  const model = new ByteModel(space);
  const maxUnits = Math.floor((device.segmentSize * 3) / unit);
  const pickRange = (): Range => {
    const roll = prng.next();
    // Mostly small IO, sometimes several segments, sometimes empty.
    const units =
      roll < 0.05 ? 0 : roll < 0.75 ? prng.nextRange(1, 16) : prng.nextRange(1, maxUnits);
    const length = units * unit;
    const address = prng.nextInt(Math.floor((space - length) / unit) + 1) * unit;
    return { address, length };
  };
  let done = 0;
  while (done < operations) {
    const size = Math.min(operations - done, prng.nextRange(1, 8));
    done += size;
    if (prng.next() < 0.5) {
      const ranges: Range[] = [];
      for (let i = 0; i < size; i++) {
        const r = pickRange();
        if (!ranges.some((o) => overlaps(o, r))) ranges.push(r);
      }
      const datas = ranges.map((r) => prng.fill(new Uint8Array(r.length)));
      await Promise.all(ranges.map((r, i) => device.write(r.address, datas[i]!)));
      ranges.forEach((r, i) => {
        model.write(r.address, datas[i]!);
      });
    } else {
      const ranges: Range[] = [];
      for (let i = 0; i < size; i++) ranges.push(pickRange());
      const intos = ranges.map((r) => new Uint8Array(r.length).fill(0xee));
      const counts = await Promise.all(ranges.map((r, i) => device.read(r.address, intos[i]!)));
      ranges.forEach((r, i) => {
        const expected = model.read(r.address, r.length);
        const what = `read of ${r.length} at ${r.address} (end ${model.end})`;
        assertBytes(intos[i]!.subarray(0, counts[i]), expected, what);
      });
    }
  }
  return model;
}
