import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition } from '../../server/command-table.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { hllCount } from './hll-count.js';
import {
  denseGet,
  denseSetRegister,
  HLL_DENSE_SIZE,
  HLL_HDR_SIZE,
  HLL_REGISTER_MAX,
  HLL_REGISTERS,
  HLL_SPARSE,
  HllValue,
} from './hll-encoding.js';
import { hllPatLen, patCount, patIndex } from './hll-hash.js';
import { hyperloglogGroup, sparseMaxBytes } from './hll-settings.js';

/**
 * PFSELFTEST, Redis's two tests with fewer rounds (Redis runs 1000 register
 * rounds and 10 million elements, seconds of a blocked server): every
 * register set to random values reads back without touching its
 * neighbours, and elements added to a dense and a sparse HLL at once give
 * the same estimate, within six standard errors of the true count, at
 * 1, 10, 100... elements, the sparse one still sparse while small.
 */
const REGISTER_ROUNDS = 20;
const ELEMENTS = 100_000;

const testFailed = (what: string) => new CommandError('ERR_STORE', `ERR TESTFAILED ${what}`);

/** Test 1: each register keeps its value, its neighbours unchanged. */
function testRegisters(): void {
  const dense = Buffer.alloc(HLL_DENSE_SIZE + 1);
  const expected = new Uint8Array(HLL_REGISTERS);
  for (let round = 0; round < REGISTER_ROUNDS; round++) {
    for (let i = 0; i < HLL_REGISTERS; i++) {
      const r = Math.floor(Math.random() * 0x10000) & HLL_REGISTER_MAX;
      expected[i] = r;
      denseSetRegister(dense, HLL_HDR_SIZE, i, r);
    }
    for (let i = 0; i < HLL_REGISTERS; i++) {
      const v = denseGet(dense, HLL_HDR_SIZE, HLL_DENSE_SIZE, i);
      if (v !== expected[i]) {
        throw testFailed(`Register ${i} should be ${expected[i]} but is ${v}`);
      }
    }
  }
}

/** Test 2: dense and sparse agree, and the error stays small. */
function testApproximation(maxBytes: number): void {
  const dense = Buffer.alloc(HLL_DENSE_SIZE + 1);
  dense.write('HYLL', 0, 'latin1');
  const sparse = HllValue.empty();
  const relerr = 1.04 / Math.sqrt(HLL_REGISTERS);
  const seedLo = (Math.random() * 0x100000000) >>> 0;
  const seedHi = (Math.random() * 0x100000000) >>> 0;
  // The element is the 64-bit j ^ seed, little endian, as Redis adds it.
  const ele = Buffer.alloc(8);
  ele.writeUInt32LE(seedHi, 4);
  let checkpoint = 1;
  for (let j = 1; j <= ELEMENTS; j++) {
    ele.writeUInt32LE((j ^ seedLo) >>> 0, 0);
    const packed = hllPatLen(ele);
    const index = patIndex(packed);
    const count = patCount(packed);
    if (count > denseGet(dense, HLL_HDR_SIZE, HLL_DENSE_SIZE, index)) {
      denseSetRegister(dense, HLL_HDR_SIZE, index, count);
    }
    sparse.add(ele, maxBytes);
    if (j !== checkpoint) continue;
    if (j < Math.floor(maxBytes / 2) && sparse.encoding !== HLL_SPARSE) {
      throw testFailed('sparse encoding not used');
    }
    const estimate = hllCount(dense, 0, HLL_DENSE_SIZE);
    if (estimate !== hllCount(sparse.bytes, 0, sparse.length)) {
      throw testFailed('dense/sparse disagree');
    }
    // Cardinality 10 may collide now and then: Redis allows it an error of 1.
    const maxerr = j === 10 ? 1 : Math.ceil(relerr * 6 * checkpoint);
    const abserr = Math.abs(checkpoint - estimate);
    if (abserr > maxerr) throw testFailed(`Too big error. card:${checkpoint} abserr:${abserr}`);
    checkpoint *= 10;
  }
}

function pfselftest(c: Client): undefined {
  testRegisters();
  testApproximation(sparseMaxBytes(c.server));
  c.reply.simple('OK');
  return undefined;
}

export const pfselftestCommand: CommandDefinition = {
  name: 'pfselftest',
  arity: 1,
  flags: ['admin'],
  ...NO_KEYS,
  ...hyperloglogGroup,
  since: '2.8.9',
  complexity: 'N/A',
  summary: 'An internal command for testing HyperLogLog values',
  handler: pfselftest,
};
