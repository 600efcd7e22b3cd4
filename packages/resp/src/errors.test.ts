import { CorruptRecordError, RecordDamage } from '@strata/hlog';
import { describe, expect, it } from 'vitest';
import { printableKey, toCommandError } from './errors.js';

describe('a damaged record as an error reply', () => {
  it('is mapped by its code to one line naming the key, the address and the damage', () => {
    const e = toCommandError(
      new CorruptRecordError(Buffer.from('user:1'), 4096, RecordDamage.CHECKSUM_MISMATCH),
    );
    expect(e.code).toBe('ERR_CORRUPT_RECORD');
    expect(e.message).toBe(
      "ERR corrupt record for key 'user:1' at log address 4096: checksum mismatch",
    );
  });

  it('escapes what would break the line or the quotes, and cuts a long key', () => {
    const key = Buffer.from("a'b\\c\r\n\x00é");
    const e = toCommandError(new CorruptRecordError(key, 8, RecordDamage.NOT_A_RECORD));
    expect(e.message).toBe(
      "ERR corrupt record for key 'a\\x27b\\x5cc\\x0d\\x0a\\x00\\xc3\\xa9' at log address 8: no record there",
    );
    expect(e.message).not.toMatch(/[\r\n]/);
    expect(printableKey(Buffer.alloc(200, 0x61), 128)).toBe(`${'a'.repeat(128)}...`);
  });
});
