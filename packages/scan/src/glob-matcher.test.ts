import { describe, expect, it } from 'vitest';
import { redisStringMatchLen } from '../test/glob-reference.js';
import { compileGlob, GLOB_MAX_STAR_NESTING } from './glob-matcher.js';

const bytes = (s: string): Buffer => Buffer.from(s, 'latin1');

function matches(pattern: string, key: string, nocase = false): boolean {
  return compileGlob(bytes(pattern), { nocase }).match(bytes(key));
}

/** [pattern, key, match, match with nocase] */
type Case = readonly [string, string, 0 | 1, 0 | 1];

// Translated from Valkey's src/unit/test_util.c `test_stringmatch`, the most
// complete table of stringmatchlen cases. The expected values are Redis's
// (src/util.c stringmatchlen_impl, Redis 7/8): Valkey has since changed how
// escapes inside a class work, and the 11 cases marked "Valkey: n" differ.
const valkeyTable: readonly Case[] = [
  // Case sensitivity.
  ['a', 'a', 1, 1],
  ['a', 'A', 0, 1],
  ['A', 'A', 1, 1],
  ['A', 'a', 0, 1],
  ['\\a', 'a', 1, 1],
  ['\\a', 'A', 0, 1],
  ['\\A', 'A', 1, 1],
  ['\\A', 'a', 0, 1],
  ['[\\a]', 'a', 1, 1],
  ['[\\a]', 'A', 0, 0], // Valkey: 0, 1 (Redis compares an escaped class byte as is)
  ['[\\A]', 'A', 1, 1],
  ['[\\A]', 'a', 0, 0], // Valkey: 0, 1
  // Escaped metacharacters.
  ['\\*', '*', 1, 1],
  ['\\?', '?', 1, 1],
  ['\\\\', '\\', 1, 1],
  ['\\[', '[', 1, 1],
  ['\\]', ']', 1, 1],
  ['\\^', '^', 1, 1],
  ['\\-', '-', 1, 1],
  ['[\\*]', '*', 1, 1],
  ['[\\?]', '?', 1, 1],
  ['[\\\\]', '\\', 1, 1],
  ['[\\[]', '[', 1, 1],
  ['[\\]]', ']', 1, 1],
  ['[\\^]', '^', 1, 1],
  ['[\\-]', '-', 1, 1],
  // Not special outside character classes.
  [']', ']', 1, 1],
  ['^', '^', 1, 1],
  ['-', '-', 1, 1],
  // Not special inside character classes.
  ['[*]', '*', 1, 1],
  ['[?]', '?', 1, 1],
  ['[[]', '[', 1, 1],
  // Not special as the first character in a character class.
  ['[-]', '-', 1, 1],
  // `]` right after `-` is the range's end (undocumented).
  ['[+-]]', ',', 1, 1],
  ['[+-]]', '*', 0, 0],
  ['[+-]]', '^', 0, 0],
  ['[+--]', ',', 1, 1],
  ['[+--]', '*', 0, 0],
  ['[+--]', '.', 0, 0],
  // And the same, unclosed.
  ['[+-]', ',', 1, 1],
  ['[+-]', '*', 0, 0],
  ['[+-]', '^', 0, 0],
  ['[+--', ',', 1, 1],
  ['[+--', '*', 0, 0],
  ['[+--', '.', 0, 0],
  // An escaped `]` alone is literal.
  ['[\\]a]', ']', 1, 1],
  ['[\\]a]', 'a', 1, 1],
  // An escape at a range start: Redis takes `\]` as one byte, then `-`, `_`.
  ['[\\]-_]', '^', 0, 0], // Valkey: 1, 1
  ['[\\]-_]', '-', 1, 1], // Valkey: 0, 0
  // An escape at a range end: Redis ends the range at the backslash.
  ['[+-\\\\]', ',', 1, 1],
  ['[+-\\\\]', '*', 0, 0],
  ['[+-\\\\]', ']', 1, 1], // Valkey: 0, 0 (Redis: `\]` is an escaped `]`, class open)
  ['[+-\\]]', ',', 0, 0], // Valkey: 1, 1 (Redis: class [+-\] then a literal `]`)
  ['[+-\\]]', '*', 0, 0],
  ['[+-\\]]', '^', 0, 0],
  ['[+-\\\\', ',', 1, 1],
  ['[+-\\\\', '*', 0, 0],
  ['[+-\\\\', ']', 0, 0],
  ['[+-\\]', ',', 1, 1],
  ['[+-\\]', '*', 0, 0],
  ['[+-\\]', '^', 0, 0],
  // An incomplete escape is a literal backslash.
  ['[+-\\', ',', 1, 1],
  ['[+-\\', '*', 0, 0],
  ['[+-\\', ']', 0, 0],
  // Valkey's regression cases.
  ['[+-\\\\]]', '\\]', 0, 0], // Valkey: 1, 1
  ['[+-\\\\]', ']', 1, 1], // Valkey: 0, 0
  ['[+-\\]]', '\\]', 1, 1], // Valkey: 0, 0
  // An empty class matches nothing, closed or not.
  ['[]', '', 0, 0],
  ['[]', 'a', 0, 0],
  ['[', '', 0, 0],
  ['[', 'a', 0, 0],
  // An empty negated class is `?`, closed or not.
  ['[^]', '', 0, 0],
  ['[^]', 'a', 1, 1],
  ['[^]', 'ab', 0, 0],
  ['[^', '', 0, 0],
  ['[^', 'a', 1, 1],
  ['[^', 'ab', 0, 0],
  // Unclosed classes are not an error.
  ['[A-', 'B', 0, 0],
];

// The examples of Redis's KEYS documentation, and tests/unit/keyspace.tcl.
const redisDocsAndKeyspace: readonly Case[] = [
  ['h?llo', 'hello', 1, 1],
  ['h?llo', 'hallo', 1, 1],
  ['h?llo', 'hxllo', 1, 1],
  ['h?llo', 'hllo', 0, 0],
  ['h*llo', 'hllo', 1, 1],
  ['h*llo', 'heeeello', 1, 1],
  ['h[ae]llo', 'hello', 1, 1],
  ['h[ae]llo', 'hallo', 1, 1],
  ['h[ae]llo', 'hillo', 0, 0],
  ['h[^e]llo', 'hallo', 1, 1],
  ['h[^e]llo', 'hbllo', 1, 1],
  ['h[^e]llo', 'hello', 0, 0],
  ['h[a-b]llo', 'hallo', 1, 1],
  ['h[a-b]llo', 'hbllo', 1, 1],
  ['h[a-b]llo', 'hcllo', 0, 0],
  // "KEYS with pattern"
  ['foo*', 'foo_a', 1, 1],
  ['foo*', 'key_x', 0, 0],
  // "KEYS with hashtag"
  ['{a}*', '{a}x', 1, 1],
  ['{a}*', '{b}a', 0, 0],
  ['*{b}*', '{b}c', 1, 1],
  ['*{b}*', '{a}z', 0, 0],
  // "Regression for pattern matching long nested loops"
  ['a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b', 'a'.repeat(40), 0, 0],
];

// Cases read off util.c for the corners the tables above leave out.
const utilCorners: readonly Case[] = [
  // Reversed ranges are the same range.
  ['[z-a]', 'm', 1, 1],
  ['[z-a]', 'A', 0, 1],
  // `[a-]`: the range `]`..`a`, left open.
  ['[a-]', '^', 1, 1],
  ['[a-]', 'a', 1, 1],
  ['[a-]', '-', 0, 0],
  ['[a-]x', 'ax', 0, 0],
  // With nocase Redis lowers the ends after ordering them.
  ['[A-z]', '_', 1, 0],
  ['[A-z]', 'Q', 1, 1],
  ['[a-Z]', '_', 1, 0],
  ['[a-Z]', 'a', 1, 0],
  ['[a-Z]', 'b', 0, 0],
  // An unterminated class swallows the rest of the pattern.
  ['[abc', 'b', 1, 1],
  ['[abc*', '*', 1, 1],
  ['[abc*', 'bz', 0, 0],
  ['x[^a', 'xb', 1, 1],
  ['x[^a', 'xa', 0, 0],
  // A trailing backslash stands for itself.
  ['a\\', 'a\\', 1, 1],
  ['a\\', 'a', 0, 0],
  ['\\', '\\', 1, 1],
  // The empty key and the empty pattern.
  ['', '', 1, 1],
  ['', 'a', 0, 0],
  ['*', '', 1, 1], // KEYS and SCAN skip the matcher for `*`
  ['**', '', 0, 0], // stringmatchlen never matches an empty key
  ['?', '', 0, 0],
  ['*', 'anything', 1, 1],
  ['**', 'x', 1, 1],
  // Stars anywhere.
  ['*a', 'a', 1, 1],
  ['a*', 'a', 1, 1],
  ['a*b', 'ab', 1, 1],
  ['a*b', 'axxb', 1, 1],
  ['a*b', 'axxba', 0, 0],
  ['a*a', 'a', 0, 0],
  ['*a*b*', 'xaxbx', 1, 1],
  ['*a*b*', 'xbxax', 0, 0],
  ['*ab*ab', 'abab', 1, 1],
  ['*ab*ab', 'ababa', 0, 0],
  ['a*?*c', 'ac', 0, 0],
  ['a*?*c', 'abc', 1, 1],
  ['\\*x', '*x', 1, 1],
  ['\\*x', 'ax', 0, 0],
  ['*\\*', 'a*', 1, 1],
  // nocase applies to literals and ranges, not to escaped class bytes.
  ['USER:*', 'user:1', 0, 1],
  ['[B-D]x', 'cX', 0, 1],
];

describe('compileGlob: Redis pattern tables', () => {
  for (const [name, table] of [
    ['Valkey test_util.c, with Redis results', valkeyTable],
    ['Redis KEYS docs and keyspace.tcl', redisDocsAndKeyspace],
    ['util.c corners', utilCorners],
  ] as const) {
    it(name, () => {
      for (const [pattern, key, sensitive, insensitive] of table) {
        const p = JSON.stringify(pattern);
        const k = JSON.stringify(key);
        expect(matches(pattern, key), `${p} ~ ${k}`).toBe(sensitive === 1);
        expect(matches(pattern, key, true), `${p} ~ ${k} nocase`).toBe(insensitive === 1);
        // The oracle agrees (except for `*` and the empty key, which Redis
        // never hands to stringmatchlen).
        if (!(pattern === '*' && key === '')) {
          expect(redisStringMatchLen(bytes(pattern), bytes(key), false), `oracle ${p} ~ ${k}`).toBe(
            sensitive === 1,
          );
          expect(redisStringMatchLen(bytes(pattern), bytes(key), true), `oracle ${p} ~ ${k}`).toBe(
            insensitive === 1,
          );
        }
      }
    });
  }
});

describe('compileGlob: fast paths and what it exposes', () => {
  it('reports the literal prefix every match starts with', () => {
    const prefixes: Record<string, string> = {
      'user:*': 'user:',
      'a?b': 'a',
      abc: 'abc',
      '\\*x': '*x',
      '[ab]c': '',
      '[a]bc*': 'abc',
      'ab*cd': 'ab',
      '': '',
      '*': '',
      '*abc': '',
      'a\\': 'a\\',
    };
    for (const [pattern, prefix] of Object.entries(prefixes)) {
      expect(Buffer.from(compileGlob(bytes(pattern)).literalPrefix).toString('latin1')).toBe(
        prefix,
      );
    }
    // With nocase a letter is two bytes, so the prefix stops before it.
    expect(Buffer.from(compileGlob(bytes('1:a*'), { nocase: true }).literalPrefix).toString()).toBe(
      '1:',
    );
  });

  it('marks match-all and exact patterns', () => {
    expect(compileGlob(bytes('*')).matchesAll).toBe(true);
    expect(compileGlob(bytes('**')).matchesAll).toBe(false);
    expect(compileGlob(bytes('a*')).matchesAll).toBe(false);
    expect(compileGlob(bytes('abc')).exact).toBe(true);
    expect(compileGlob(bytes('a\\?c')).exact).toBe(true);
    expect(compileGlob(bytes('')).exact).toBe(true);
    expect(compileGlob(bytes('a?c')).exact).toBe(false);
    expect(compileGlob(bytes('abc'), { nocase: true }).exact).toBe(false);
    expect(compileGlob(bytes('a*b?[cd]')).minLength).toBe(4);
  });

  it('matches a key inside a larger buffer without reading outside it', () => {
    const page = bytes('xxuser:42yy');
    const m = compileGlob(bytes('user:*'));
    expect(m.match(page, 2, 9)).toBe(true);
    expect(m.match(page, 3, 9)).toBe(false);
    expect(compileGlob(bytes('*42')).match(page, 2, 9)).toBe(true);
    expect(compileGlob(bytes('*42')).match(page, 2, 10)).toBe(false);
    expect(compileGlob(bytes('user:42')).match(page, 2, 9)).toBe(true);
    expect(compileGlob(bytes('?')).match(page, 4, 4)).toBe(false);
    expect(compileGlob(bytes('*')).match(page, 4, 4)).toBe(true);
  });

  it('keeps its own copy of the pattern', () => {
    const pattern = bytes('ab*');
    const m = compileGlob(pattern);
    pattern[0] = 0x7a;
    expect(m.match(bytes('abc'))).toBe(true);
  });
});

describe('compileGlob: pathological patterns', () => {
  it(`gives up past ${GLOB_MAX_STAR_NESTING} nested stars, as Redis does`, () => {
    const key = bytes('a'.repeat(GLOB_MAX_STAR_NESTING + 2));
    const atLimit = bytes(`${'a*'.repeat(GLOB_MAX_STAR_NESTING)}a`);
    const overLimit = bytes(`${'a*'.repeat(GLOB_MAX_STAR_NESTING + 1)}a`);
    expect(compileGlob(atLimit).match(key)).toBe(true);
    expect(redisStringMatchLen(atLimit, key, false)).toBe(true);
    expect(compileGlob(overLimit).match(key)).toBe(false);
    expect(redisStringMatchLen(overLimit, key, false)).toBe(false);
    // A final `*` does not nest.
    const finalStar = bytes(`${'a*'.repeat(GLOB_MAX_STAR_NESTING)}a*`);
    expect(compileGlob(finalStar).match(key)).toBe(true);
    expect(redisStringMatchLen(finalStar, key, false)).toBe(true);
  });

  it('answers "*?" x 50000 against 50000 bytes at once', () => {
    const started = performance.now();
    expect(compileGlob(bytes('*?'.repeat(50_000))).match(bytes('a'.repeat(50_000)))).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('stays O(key x pattern) where backtracking is exponential', () => {
    const started = performance.now();
    const star20 = compileGlob(bytes(`${'a*'.repeat(20)}b`));
    expect(star20.match(bytes('a'.repeat(10_000)))).toBe(false);
    const middle = compileGlob(bytes(`*${'a'.repeat(100)}b*`));
    expect(middle.match(bytes('a'.repeat(100_000)))).toBe(false);
    expect(middle.match(bytes(`${'a'.repeat(100_000)}b`))).toBe(true);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

/** mulberry32: a small seeded PRNG so failures reproduce. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomString(rand: () => number, alphabet: string, maxLength: number): string {
  const n = Math.floor(rand() * (maxLength + 1));
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(rand() * alphabet.length)];
  return s;
}

describe('compileGlob: property test against the stringmatchlen port', () => {
  it('agrees on random patterns and keys over *?[]^-\\ and a few letters', () => {
    const rand = prng(0x5eed);
    // `*` and `?` twice, so that a fair share of pairs match.
    const patternAlphabet = 'ab*?*?[]^-\\A';
    const keyAlphabet = 'ab-^]\\[*?A';
    let compared = 0;
    let matched = 0;
    for (let round = 0; round < 6000; round++) {
      const pattern = bytes(randomString(rand, patternAlphabet, 10));
      const nocase = rand() < 0.3;
      const m = compileGlob(pattern, { nocase });
      const isStar = pattern.length === 1 && pattern[0] === 0x2a;
      for (let k = 0; k < 25; k++) {
        const keyText = randomString(rand, keyAlphabet, 8);
        const key = bytes(keyText);
        const want = isStar || redisStringMatchLen(pattern, key, nocase);
        // The same key at an offset inside a buffer, with bytes around it
        // that would change the answer if the matcher read past the range.
        const framed = bytes(`*a]${keyText}b*[`);
        const got = m.match(key);
        if (got !== want || m.match(framed, 3, 3 + key.length) !== want) {
          throw new Error(
            `pattern ${JSON.stringify(pattern.toString('latin1'))} key ${JSON.stringify(keyText)} nocase=${nocase}: got ${got}, Redis ${want}`,
          );
        }
        if (want) {
          matched++;
          let starts = true;
          for (let i = 0; i < m.literalPrefix.length; i++) {
            if (key[i] !== m.literalPrefix[i]) starts = false;
          }
          expect(starts).toBe(true);
          expect(key.length).toBeGreaterThanOrEqual(m.minLength);
        }
        compared++;
      }
    }
    expect(compared).toBe(150_000);
    // The generator must exercise matches, not only rejections.
    expect(matched).toBeGreaterThan(5000);
  });

  it('agrees on arbitrary bytes, as the Redis fuzz test feeds it', () => {
    const rand = prng(42);
    for (let round = 0; round < 3000; round++) {
      const pattern = Buffer.alloc(Math.floor(rand() * 12));
      for (let i = 0; i < pattern.length; i++) pattern[i] = Math.floor(rand() * 128);
      const m = compileGlob(pattern);
      const isStar = pattern.length === 1 && pattern[0] === 0x2a;
      for (let k = 0; k < 10; k++) {
        const key = Buffer.alloc(Math.floor(rand() * 8));
        for (let i = 0; i < key.length; i++) key[i] = Math.floor(rand() * 128);
        expect(m.match(key)).toBe(isStar || redisStringMatchLen(pattern, key, false));
      }
    }
  });
});
