import { expect, test } from 'vitest';
import { parseDouble } from './zsets-args.js';

const bytes = (s: string) => Buffer.from(s, 'latin1');

test('plain decimals read from the bytes equal strtod (Number) exactly', () => {
  let seed = 12345;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed;
  };
  for (let i = 0; i < 20_000; i++) {
    const intDigits = String(rand() % 10 ** (1 + (rand() % 9)));
    const frac = rand() % 3 === 0 ? '' : `.${String(rand()).slice(0, 1 + (rand() % 9))}`;
    const lead = rand() % 5 === 0 ? '000' : '';
    const sign = ['', '-', '+'][rand() % 3]!;
    const s = `${sign}${lead}${intDigits}${frac}`;
    expect(Object.is(parseDouble(bytes(s)), Number(s))).toBe(true);
  }
});

test('edge forms: signs, zeros, points, exponents, inf, hex, and what is not a number', () => {
  const cases: [string, number][] = [
    ['0', 0],
    ['-0', -0],
    ['+0.0', 0],
    ['.5', 0.5],
    ['-.25', -0.25],
    ['5.', 5],
    ['000000001234', 1234],
    ['0.1', 0.1],
    ['9007199254740991', 9007199254740991],
    ['9007199254740993', 9007199254740992],
    ['123456789012345678901234567890', 1.2345678901234568e29],
    ['0.0000000000000000000001', 1e-22],
    ['0.00000000000000000000001', 1e-23],
    ['1e3', 1000],
    ['-2.5E-3', -0.0025],
    ['inf', Number.POSITIVE_INFINITY],
    ['-inf', Number.NEGATIVE_INFINITY],
    ['0x10', 16],
  ];
  for (const [s, v] of cases) expect([s, parseDouble(bytes(s))]).toEqual([s, v]);
  for (const s of ['', '.', '-', '+', '1.2.3', '1 ', ' 1', 'abc', '1e', 'nan', '--1', '1-']) {
    expect([s, parseDouble(bytes(s))]).toEqual([s, Number.NaN]);
  }
});
