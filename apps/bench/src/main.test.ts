import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, main } from './main.js';
import { defineScenario, higher } from './scenario.js';

const good = defineScenario({
  name: 'good',
  description: 'always 42',
  params: { full: { n: 2 }, ci: { n: 1 } },
  variants: [higher('fast', 'ops/s'), higher('slow', 'ops/s')],
  ratios: ['fast/slow'],
  run: (v) => (v.name === 'fast' ? 42 : 21),
  metrics: () => ({ answer: 42 }),
});

const bad = defineScenario({
  name: 'bad',
  description: 'always fails',
  params: { full: {}, ci: {} },
  variants: [higher('x', 'ops/s')],
  run: () => {
    throw new Error('broken on purpose');
  },
});

function harness(scenarios = [good, bad]) {
  const out: string[] = [];
  const err: string[] = [];
  const env = {
    stdout: (t: string) => out.push(t),
    stderr: (t: string) => err.push(t),
    scenarios,
    runOptions: { coldCacheImpl: async () => 'warm' as const, commit: null },
  };
  return { env, out: () => out.join(''), err: () => err.join('') };
}

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'strata-bench-main-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('main', () => {
  it('lists the scenarios', async () => {
    const h = harness();
    expect(await main(['list'], h.env)).toBe(EXIT_OK);
    expect(h.out()).toMatch(/good\s+always 42/);
    expect(h.out()).toMatch(/bad\s+always fails/);
  });

  it('prints help with --help', async () => {
    const h = harness();
    expect(await main(['--help'], h.env)).toBe(EXIT_OK);
    expect(h.out()).toMatch(/Usage:/);
  });

  it('fails clearly on an unknown scenario', async () => {
    const h = harness();
    expect(await main(['nope'], h.env)).toBe(EXIT_USAGE);
    expect(h.err()).toMatch(/unknown scenario 'nope'; known: good, bad/);
    expect(h.out()).toBe('');
  });

  it('fails with usage on bad arguments', async () => {
    const h = harness();
    expect(await main(['good', '--runs', 'x'], h.env)).toBe(EXIT_USAGE);
    expect(h.err()).toMatch(/--runs must be/);
    expect(h.err()).toMatch(/--help/);
  });

  it('runs a scenario, prints the table and writes --json', async () => {
    const h = harness();
    const file = path.join(tmp, 'good.json');
    expect(await main(['good', '--runs', '2', '--json', file], h.env)).toBe(EXIT_OK);
    expect(h.out()).toMatch(/fast\s+ops\/s\s+42\s+42\s+42/);
    expect(h.out()).toMatch(/fast\/slow\s+2\s+2\s+2/);
    expect(h.err()).toMatch(/run 2\/2/); // progress on stderr
    const json = JSON.parse(await readFile(file, 'utf8'));
    expect(json.scenario).toBe('good');
    expect(json.params).toMatchObject({ n: 2, ci: false, runs: 2 });
    expect(json.metrics).toEqual({ answer: 42 });
  });

  it('passes --order and --seed to the runner, recorded in the JSON', async () => {
    const h = harness();
    const file = path.join(tmp, 'seeded.json');
    expect(await main(['good', '--seed', '77', '--json', file], h.env)).toBe(EXIT_OK);
    expect(h.err()).toMatch(/order shuffled \(seed 77\)/);
    let json = JSON.parse(await readFile(file, 'utf8'));
    expect(json.params).toMatchObject({ order: 'shuffled', orderSeed: 77 });

    const fixed = path.join(tmp, 'fixed.json');
    expect(await main(['good', '--order', 'fixed', '--json', fixed], h.env)).toBe(EXIT_OK);
    json = JSON.parse(await readFile(fixed, 'utf8'));
    expect(json.params.order).toBe('fixed');
    expect(json.params).not.toHaveProperty('orderSeed');
  });

  it('exits non-zero when a scenario fails, naming it', async () => {
    const h = harness();
    expect(await main(['bad'], h.env)).toBe(EXIT_FAILED);
    expect(h.err()).toMatch(/scenario bad failed: Error: broken on purpose/);
  });

  it('runs every scenario with --ci, writes --out files, reports failures', async () => {
    const h = harness();
    const out = path.join(tmp, 'ci');
    expect(await main(['--ci', '--out', out], h.env)).toBe(EXIT_FAILED);
    const json = JSON.parse(await readFile(path.join(out, 'good.json'), 'utf8'));
    expect(json.params).toMatchObject({ n: 1, ci: true, runs: 2 });
    expect(h.err()).toMatch(/1 passed, 1 failed .*\(failed: bad\)/);
  });

  it('exits 0 with --ci when every scenario passes', async () => {
    const h = harness([good]);
    expect(await main(['--ci'], h.env)).toBe(EXIT_OK);
  });
});
