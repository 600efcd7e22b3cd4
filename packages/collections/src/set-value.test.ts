import { describe, expect, it } from 'vitest';
import { decoderFor } from './codecs.js';
import { intsetMember, SET_MAX_INTSET_ENTRIES, SetValue } from './set-value.js';

function members(s: SetValue): string[] {
  const out: string[] = [];
  s.forEach((m) => {
    out.push(m);
  });
  return out;
}

describe('SetValue', () => {
  it('recognizes intset members as string2ll does, within 2^53', () => {
    expect(intsetMember('0')).toBe(0);
    expect(intsetMember('-12')).toBe(-12);
    expect(intsetMember('012')).toBeNull();
    expect(intsetMember('-0')).toBeNull();
    expect(intsetMember('1.0')).toBeNull();
    expect(intsetMember('')).toBeNull();
    expect(intsetMember('-')).toBeNull();
    expect(intsetMember('9007199254740991')).toBe(9007199254740991);
    expect(intsetMember('9007199254740993')).toBeNull();
  });

  it('is an intset in ascending order, then a listpack, then a hashtable', () => {
    const s = SetValue.empty();
    for (const m of ['5', '-3', '10', '5']) s.add(m);
    expect(s.encoding()).toBe('intset');
    expect(members(s)).toEqual(['-3', '5', '10']);
    expect(s.has('5')).toBe(true);
    expect(s.has('05')).toBe(false);
    s.add('x');
    expect(s.encoding()).toBe('listpack');
    expect(s.has('10')).toBe(true);
    s.add('y'.repeat(65));
    expect(s.encoding()).toBe('hashtable');
    expect(s.size).toBe(5);
  });

  it('an intset past 512 members becomes a hashtable', () => {
    const s = SetValue.empty();
    for (let i = 0; i < SET_MAX_INTSET_ENTRIES; i++) s.add(String(i));
    expect(s.encoding()).toBe('intset');
    s.add('100000');
    expect(s.encoding()).toBe('hashtable');
    expect(s.size).toBe(SET_MAX_INTSET_ENTRIES + 1);
  });

  it('round-trips through encode and the registered decoder, keeping the encoding', () => {
    for (const init of [
      ['1', '2'],
      ['a', 'b', '1'],
      Array.from({ length: 200 }, (_, i) => `m${i}`),
    ]) {
      const s = SetValue.empty();
      for (const m of init) s.add(m);
      const back = decoderFor(2)!(s.encode()) as SetValue;
      expect(new Set(members(back))).toEqual(new Set(members(s)));
      expect(back.encoding()).toBe(s.encoding());
    }
  });

  it('deletes in every shape', () => {
    const s = SetValue.empty();
    s.add('1');
    expect(s.delete('1')).toBe(true);
    expect(s.delete('1')).toBe(false);
    s.add('a');
    expect(s.delete('a')).toBe(true);
    expect(s.size).toBe(0);
  });
});
