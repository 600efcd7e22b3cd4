import { isStrataError } from '@strata/io';
import { describe, expect, it } from 'vitest';
import {
  checkReadMode,
  DEFAULT_MAX_READ_SIZE,
  DEFAULT_MIN_READ_SIZE,
  framesForMode,
  parseReadMode,
  readMode,
  readModeName,
} from './read-mode.js';

describe('read modes', () => {
  it('builds each mode and counts its frames', () => {
    expect(framesForMode(readMode.single())).toBe(1);
    expect(framesForMode(readMode.double())).toBe(2);
    expect(framesForMode(readMode.frames(5))).toBe(5);
    expect(framesForMode(readMode.adaptive())).toBe(3);
    expect(framesForMode(readMode.adaptive({ readsAhead: 3 }))).toBe(4);
    expect(readMode.adaptive()).toEqual({
      kind: 'adaptive',
      minReadSize: DEFAULT_MIN_READ_SIZE,
      maxReadSize: DEFAULT_MAX_READ_SIZE,
      readsAhead: 2,
    });
    expect(DEFAULT_MIN_READ_SIZE).toBe(128 * 1024);
    expect(DEFAULT_MAX_READ_SIZE).toBe(8 * 1024 * 1024);
  });

  it('parses and names modes', () => {
    for (const name of ['single', 'double', 'frames4', 'adaptive']) {
      expect(readModeName(parseReadMode(name))).toBe(name);
    }
    expect(parseReadMode('frames16')).toEqual({ kind: 'frames', count: 16 });
    let code: unknown;
    try {
      parseReadMode('triple');
    } catch (e) {
      code = isStrataError(e) ? e.code : e;
    }
    expect(code).toBe('ERR_INVALID_ARGUMENT');
  });

  it('rejects malformed modes', () => {
    expect(() => readMode.frames(0)).toThrow(/frame count/);
    expect(() => readMode.frames(2.5)).toThrow(/frame count/);
    expect(() => readMode.adaptive({ minReadSize: 0 })).toThrow(/minReadSize/);
    expect(() => readMode.adaptive({ minReadSize: 4096, maxReadSize: 1024 })).toThrow(
      /maxReadSize/,
    );
    expect(() => readMode.adaptive({ readsAhead: -1 })).toThrow(/readsAhead/);
    expect(checkReadMode({ kind: 'double' })).toEqual({ kind: 'double' });
  });
});
