import { describe, expect, test } from 'vitest';
import { add, formatHuman, fromNumber, parseLongDouble } from './long-double.js';

const sum = (a: string, b: string) => formatHuman(add(parseLongDouble(a)!, parseLongDouble(b)!));

describe('long double, as Redis INCRBYFLOAT computes', () => {
  test('sums with Redis digits', () => {
    expect(sum('5.6', '4500')).toBe('4505.60000000000000009');
    expect(sum('10.5', '0.1')).toBe('10.6');
    expect(sum('0.3', '-0.3')).toBe('0');
    expect(sum('-1', '0.5')).toBe('-0.5');
    expect(sum('1e-20', '0')).toBe('0');
  });

  test('parses as strtold over the whole string', () => {
    expect(parseLongDouble('')).toBeNull();
    expect(parseLongDouble(' 1')).toBeNull();
    expect(parseLongDouble('1 ')).toBeNull();
    expect(parseLongDouble('abc')).toBeNull();
    expect(parseLongDouble('nan')).toBeNull();
    expect(parseLongDouble('1e5000')).toBeNull();
    expect(parseLongDouble('inf')?.kind).toBe('infinite');
    expect(formatHuman(parseLongDouble('0x10')!)).toBe('16');
    expect(formatHuman(parseLongDouble('.5')!)).toBe('0.5');
    expect(formatHuman(parseLongDouble('-.5e1')!)).toBe('-5');
  });

  test('doubles convert exactly', () => {
    expect(formatHuman(fromNumber(0.5))).toBe('0.5');
    expect(formatHuman(fromNumber(0.1))).toBe('0.10000000000000001');
    expect(formatHuman(fromNumber(-0))).toBe('0');
  });

  test('overflow gives infinity', () => {
    let v = parseLongDouble('1e4000')!;
    v = add(v, v);
    expect(v.kind).toBe('finite');
    for (let i = 0; i < 5000 && v.kind === 'finite'; i++) v = add(v, v);
    expect(v.kind).toBe('infinite');
  });
});
