import { describe, expect, it } from 'vitest';
import { encodeDumpPayload, parseDumpPayload, RdbError } from '../src/index.js';

// The README's first example, as it is written there.
describe('README example', () => {
  it('encodes, parses and refuses a DUMP payload', () => {
    const payload = encodeDumpPayload({
      type: 'hash',
      fields: [[Buffer.from('f'), Buffer.from('v')]],
    });
    const { value, rdbVersion } = parseDumpPayload(payload);
    expect(rdbVersion).toBe(10);
    expect(value).toEqual({
      type: 'hash',
      rdbType: 16,
      fields: [[Buffer.from('f'), Buffer.from('v')]],
    });

    payload[payload.length - 1] = (payload.at(-1) ?? 0) ^ 1;
    let caught: unknown;
    try {
      parseDumpPayload(payload);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(RdbError);
    expect((caught as RdbError).code).toBe('ERR_DUMP_PAYLOAD');
  });
});
