import { describe, expect, it } from 'vitest';
import { parseCli, UsageError } from './args.js';

describe('parseCli', () => {
  it('parses list and help', () => {
    expect(parseCli(['list'])).toEqual({ kind: 'list' });
    expect(parseCli(['--help'])).toEqual({ kind: 'help' });
    expect(parseCli(['-h'])).toEqual({ kind: 'help' });
    expect(parseCli(['io-seq-read', '--help'])).toEqual({ kind: 'help' });
  });

  it('parses one scenario with options', () => {
    expect(parseCli(['io-seq-read', '--json', 'out.json', '--ci', '--runs', '5'])).toEqual({
      kind: 'run',
      scenarios: ['io-seq-read'],
      ci: true,
      runs: 5,
      json: 'out.json',
      cache: 'evict',
    });
    expect(parseCli(['x', '--warmup', '0', '--dir', '/data', '--warm'])).toMatchObject({
      scenarios: ['x'],
      ci: false,
      warmup: 0,
      dir: '/data',
      cache: 'warm',
    });
  });

  it("evicts the bench's own files by default; --drop-caches drops the whole cache", () => {
    expect(parseCli(['x'])).toMatchObject({ cache: 'evict' });
    expect(parseCli(['x', '--drop-caches'])).toMatchObject({ cache: 'drop' });
    expect(parseCli(['--ci', '--drop-caches'])).toMatchObject({ scenarios: 'all', cache: 'drop' });
    expect(() => parseCli(['x', '--warm', '--drop-caches'])).toThrow(/contradict/);
  });

  it('parses report with its inputs and --html', () => {
    expect(parseCli(['report', 'a'])).toEqual({ kind: 'report', inputs: ['a'] });
    expect(parseCli(['report', 'a', 'b/x.json', '--html', 'out.html'])).toEqual({
      kind: 'report',
      inputs: ['a', 'b/x.json'],
      html: 'out.html',
    });
    expect(() => parseCli(['report'])).toThrow(/directory or JSON file/);
    expect(() => parseCli(['report', 'a', '--ci'])).toThrow(/report takes --html, not --ci/);
    expect(() => parseCli(['io-seq-read', '--html', 'x.html'])).toThrow(/option of report/);
  });

  it('runs every scenario with --ci alone', () => {
    expect(parseCli(['--ci', '--out', '/tmp/r'])).toEqual({
      kind: 'run',
      scenarios: 'all',
      ci: true,
      out: '/tmp/r',
      cache: 'evict',
    });
  });

  it('parses the variant order and its seed', () => {
    expect(parseCli(['x'])).not.toHaveProperty('order');
    expect(parseCli(['x', '--order', 'alternating'])).toMatchObject({ order: 'alternating' });
    expect(parseCli(['x', '--order', 'fixed'])).toMatchObject({ order: 'fixed' });
    expect(parseCli(['x', '--seed', '123'])).toMatchObject({ seed: 123 });
    expect(parseCli(['x', '--order', 'shuffled', '--seed', '0'])).toMatchObject({
      order: 'shuffled',
      seed: 0,
    });
    expect(parseCli(['x', '--seed', '4294967295'])).toMatchObject({ seed: 4294967295 });
  });

  it('rejects an unknown order, a bad seed, or a seed without shuffling', () => {
    expect(() => parseCli(['x', '--order', 'random'])).toThrow(
      /--order must be one of shuffled, alternating, fixed/,
    );
    expect(() => parseCli(['x', '--seed', '1.5'])).toThrow(/--seed must be an integer >= 0/);
    expect(() => parseCli(['x', '--seed', '4294967296'])).toThrow(/--seed must be < 2\^32/);
    expect(() => parseCli(['x', '--order', 'fixed', '--seed', '1'])).toThrow(
      /--seed applies to --order shuffled/,
    );
  });

  it('rejects bad usage with a UsageError', () => {
    expect(() => parseCli([])).toThrow(/no scenario given/);
    expect(() => parseCli(['a', 'b'])).toThrow(/one scenario at a time/);
    expect(() => parseCli(['list', 'x'])).toThrow(/list takes no arguments/);
    expect(() => parseCli(['--ci', '--json', 'f.json'])).toThrow(/--out DIR/);
    expect(() => parseCli(['x', '--runs', '0'])).toThrow(/--runs must be an integer >= 1/);
    expect(() => parseCli(['x', '--runs', 'many'])).toThrow(/--runs/);
    expect(() => parseCli(['x', '--warmup', '-1'])).toThrow(UsageError);
    expect(() => parseCli(['x', '--bogus'])).toThrow(UsageError);
    expect(() => parseCli(['x', '--json'])).toThrow(UsageError);
  });
});
