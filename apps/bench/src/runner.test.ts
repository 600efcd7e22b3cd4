import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { MachineInfo } from './machine.js';
import type { CacheMode, CacheState } from './page-cache.js';
import { reportToJson } from './report.js';
import { resolveScenario, runScenario } from './runner.js';
import { defineScenario, higher, lower } from './scenario.js';

const machine: MachineInfo = {
  hostname: 'test-host',
  cpus: 2,
  cpuModel: 'test cpu',
  node: 'v20.0.0',
  totalMemory: 1 << 30,
  platform: 'linux',
  arch: 'x64',
  release: 'test',
};
const commit = { sha: 'c0ffee0000000000000000000000000000000000', dirty: false };
const quiet = {
  log: () => {},
  machine,
  commit,
  coldCacheImpl: async (): Promise<CacheState> => 'evicted',
};

/** A scenario whose run returns scripted values and records the call order. */
function scripted(values: Record<string, number[]>, extra: { readsDisk?: boolean } = {}) {
  const calls: string[] = [];
  const scenario = defineScenario({
    name: 'fake',
    description: 'a fake scenario',
    params: { full: { n: 100 }, ci: { n: 10 } },
    variants: [higher('a', 'ops/s'), higher('b', 'ops/s'), lower('c', 'ms')],
    ratios: ['a/b', 'c/a'],
    ...extra,
    setup: () => {
      calls.push('setup');
      return { opened: true };
    },
    run(variant, ctx) {
      calls.push(`${variant.name}${ctx.warmup ? 'w' : ctx.run}`);
      expect(ctx.state.opened).toBe(true);
      expect(existsSync(ctx.dir)).toBe(true);
      if (ctx.warmup) return 1;
      return values[variant.name]![ctx.run]!;
    },
    metrics: (results) => ({ total: results.median('a') + results.median('b') }),
    teardown: () => {
      calls.push('teardown');
    },
  });
  return { scenario, calls };
}

describe('runScenario', () => {
  const values = { a: [10, 30, 20], b: [10, 10, 40], c: [1, 2, 3] };

  it('runs setup, warm-up, interleaved runs, teardown', async () => {
    const { scenario, calls } = scripted(values);
    await runScenario(scenario, { ...quiet, runs: 3, warmup: 1, order: 'fixed' });
    expect(calls).toEqual([
      'setup',
      ...['aw', 'bw', 'cw'],
      ...['a0', 'b0', 'c0'],
      ...['a1', 'b1', 'c1'],
      ...['a2', 'b2', 'c2'],
      'teardown',
    ]);
  });

  it('shuffles every round by default, from a recorded seed that replays it', async () => {
    const first = scripted(values);
    const { report } = await runScenario(first.scenario, { ...quiet, runs: 3, warmup: 1 });
    expect(report.params.order).toBe('shuffled');
    const seed = report.params.orderSeed;
    expect(Number.isInteger(seed)).toBe(true);
    const rounds = [1, 4, 7, 10].map((i) => first.calls.slice(i, i + 3));
    expect(rounds.map((r) => r.map((c) => c.slice(1)))).toEqual([
      ['w', 'w', 'w'],
      ['0', '0', '0'],
      ['1', '1', '1'],
      ['2', '2', '2'],
    ]);
    for (const r of rounds) expect(r.map((c) => c[0]).sort()).toEqual(['a', 'b', 'c']);

    const again = scripted(values);
    await runScenario(again.scenario, { ...quiet, runs: 3, warmup: 1, orderSeed: seed as number });
    expect(again.calls).toEqual(first.calls);
    // Over a few seeds, not every round in declaration order.
    const orders = new Set<string>();
    for (let s = 0; s < 5; s++) {
      const other = scripted(values);
      await runScenario(other.scenario, { ...quiet, runs: 3, warmup: 0, orderSeed: s });
      orders.add(other.calls.join());
    }
    expect(orders.size).toBeGreaterThan(1);
  });

  it('alternates direction by round with order alternating', async () => {
    const { scenario, calls } = scripted(values);
    const { report } = await runScenario(scenario, {
      ...quiet,
      runs: 3,
      warmup: 1,
      order: 'alternating',
    });
    expect(calls.slice(1, -1)).toEqual([
      ...['aw', 'bw', 'cw'],
      ...['c0', 'b0', 'a0'],
      ...['a1', 'b1', 'c1'],
      ...['c2', 'b2', 'a2'],
    ]);
    expect(report.params.order).toBe('alternating');
    expect('orderSeed' in report.params).toBe(false);
  });

  it('cancels an effect carried to the next variant (slow after a 4-in-flight pass)', async () => {
    // Every variant is worth 100, except right after 'q4-8m', which leaves
    // the disk slow for whatever runs next (halved), as the VM disk did.
    const names = ['q1-1m', 'q4-1m', 'fs-1m', 'q1-8m', 'q4-8m', 'fs-8m'];
    const medians = async (order: 'fixed' | 'alternating' | 'shuffled', orderSeed?: number) => {
      let previous = '';
      const scenario = defineScenario({
        name: 'carry',
        description: '',
        params: { full: {}, ci: {} },
        variants: names.map((n) => higher(n, 'MB/s')),
        ratios: ['q4-8m/fs-8m', 'q1-8m/fs-8m'],
        run(variant) {
          const value = previous === 'q4-8m' ? 50 : 100;
          previous = variant.name;
          return value;
        },
      });
      const { report } = await runScenario(scenario, {
        ...quiet,
        runs: 3,
        warmup: 1,
        order,
        ...(orderSeed === undefined ? {} : { orderSeed }),
      });
      return {
        variants: Object.fromEntries(report.variants.map((v) => [v.name, v.median])),
        ratios: report.ratios.map((r) => r.median),
      };
    };
    // The bug: with a fixed order fs-8m always runs after q4-8m.
    const fixed = await medians('fixed');
    expect(fixed.variants['fs-8m']).toBe(50);
    expect(fixed.ratios).toEqual([2, 2]);
    // Alternating (warm-up forward, then backward, forward, backward): the
    // victim moves to q1-8m, which follows q4-8m in 2 of the 3 runs.
    const alternating = await medians('alternating');
    expect(alternating.variants['q1-8m']).toBe(50);
    expect(alternating.ratios).toEqual([1, 0.5]);
    // Shuffled: the slow run lands on a different variant each round, so
    // it is at most one of any variant's three runs and the median drops it.
    for (let seed = 0; seed < 50; seed++) {
      const shuffled = await medians('shuffled', seed);
      expect(Object.values(shuffled.variants), `seed ${seed}`).toEqual(names.map(() => 100));
      expect(shuffled.ratios, `seed ${seed}`).toEqual([1, 1]);
    }
  });

  it('summarizes variants and computes ratios round by round, whatever the order', async () => {
    for (const order of ['fixed', 'alternating', 'shuffled'] as const) {
      for (const orderSeed of [0, 1, 2, 3]) {
        const { scenario } = scripted(values);
        const { report } = await runScenario(scenario, {
          ...quiet,
          runs: 3,
          warmup: 1,
          order,
          orderSeed,
        });
        expect(report.ratios[0]).toMatchObject({ name: 'a/b', median: 1, min: 0.5, max: 3 });
        expect(report.ratios[0]!.values).toEqual([1, 3, 0.5]);
      }
    }
    const { scenario } = scripted(values);
    const { report } = await runScenario(scenario, { ...quiet, runs: 3, warmup: 1 });
    const ab = values.a!;
    expect(report.variants).toEqual([
      {
        name: 'a',
        unit: 'ops/s',
        higherIsBetter: true,
        median: 20,
        min: 10,
        max: 30,
        values: ab,
        samples: {},
      },
      {
        name: 'b',
        unit: 'ops/s',
        higherIsBetter: true,
        median: 10,
        min: 10,
        max: 40,
        values: values.b,
        samples: {},
      },
      {
        name: 'c',
        unit: 'ms',
        higherIsBetter: false,
        median: 2,
        min: 1,
        max: 3,
        values: values.c,
        samples: {},
      },
    ]);
    // a/b per run: 1, 3, 0.5; c/a per run: 0.1, 2/30, 0.15
    expect(report.ratios[0]).toEqual({
      name: 'a/b',
      higherIsBetter: true,
      median: 1,
      min: 0.5,
      max: 3,
      values: [1, 3, 0.5],
    });
    expect(report.ratios[1]!.higherIsBetter).toBe(false); // c is a latency
    expect(report.ratios[1]!.name).toBe('c/a');
    expect(report.ratios[1]!.median).toBeCloseTo(0.1);
    expect(report.metrics).toEqual({ total: 30 });
  });

  it('writes exactly the agreed JSON shape', async () => {
    const { scenario } = scripted(values);
    const before = Date.now();
    const { report } = await runScenario(scenario, {
      ...quiet,
      runs: 3,
      warmup: 0,
      orderSeed: 9,
    });
    const json = JSON.parse(reportToJson(report));
    expect(Object.keys(json)).toEqual([
      'scenario',
      'description',
      'timestamp',
      'commit',
      'params',
      'machine',
      'variants',
      'ratios',
      'metrics',
    ]);
    expect(json.scenario).toBe('fake');
    expect(json.description).toBe('a fake scenario');
    expect(json.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(json.timestamp)).toBeGreaterThanOrEqual(before - 1000);
    expect(json.commit).toEqual(commit);
    expect(json.params).toEqual({
      n: 100,
      ci: false,
      runs: 3,
      warmup: 0,
      cache: 'warm',
      order: 'shuffled',
      orderSeed: 9,
    });
    expect(json.machine.cpus).toBe(2);
    expect(json.machine.node).toBe('v20.0.0');
    expect(json.machine.hostname).toBe('test-host');
    for (const v of json.variants) {
      expect(Object.keys(v)).toEqual([
        'name',
        'unit',
        'higherIsBetter',
        'median',
        'min',
        'max',
        'values',
        'samples',
      ]);
      expect(v.values).toEqual(values[v.name as keyof typeof values]); // raw, by round
    }
    for (const r of json.ratios) {
      expect(Object.keys(r)).toEqual(['name', 'higherIsBetter', 'median', 'min', 'max', 'values']);
      expect(r.values).toHaveLength(3);
    }
    expect(typeof json.metrics.total).toBe('number');
  });

  it('records the raw samples of every run beside their median metric', async () => {
    const scenario = defineScenario({
      name: 'raw',
      description: '',
      params: { full: {}, ci: {} },
      variants: [higher('x', 'ops/s')],
      run: (_v, ctx) => ({ value: 100 + ctx.run, samples: { rss_mib: 10 + ctx.run } }),
    });
    const { report } = await runScenario(scenario, { ...quiet, runs: 3, warmup: 0 });
    expect(report.variants[0]!.values).toEqual([100, 101, 102]);
    expect(report.variants[0]!.samples).toEqual({ rss_mib: [10, 11, 12] });
    expect(report.metrics).toEqual({ 'x.rss_mib': 11 });
  });

  it('records the commit git gives when none is injected', async () => {
    const { scenario } = scripted(values);
    const { commit: _fake, ...rest } = quiet;
    const { report } = await runScenario(scenario, { ...rest, runs: 3, warmup: 0 });
    // The bench's tests run in the repository's checkout.
    expect(report.commit?.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(typeof report.commit?.dirty).toBe('boolean');
  });

  it('carries ratio targets and rejects a target for an undeclared ratio', async () => {
    const { scenario } = scripted(values);
    const { report } = await runScenario(
      { ...scenario, targets: { 'a/b': 0.8 } },
      { ...quiet, runs: 3, warmup: 0 },
    );
    expect(report.ratios[0]).toMatchObject({ name: 'a/b', target: 0.8 });
    expect(report.ratios[1]).not.toHaveProperty('target');
    await expect(
      runScenario({ ...scenario, targets: { 'b/a': 1 } }, { ...quiet, runs: 1, warmup: 0 }),
    ).rejects.toThrow(/target for undeclared ratio 'b\/a'/);
  });

  it('uses the ci parameters, runs and warm-up with ci', async () => {
    const seen: number[] = [];
    const scenario = defineScenario({
      name: 'sizes',
      description: '',
      params: { full: { n: 1000 }, ci: { n: 5 } },
      variants: [higher('x', 'ops/s')],
      run: (_v, ctx) => {
        seen.push(ctx.params.n);
        return 1;
      },
    });
    const { report } = await runScenario(scenario, { ...quiet, ci: true });
    expect(seen).toEqual([5, 5, 5]); // 1 warm-up + 2 runs by default at ci size
    expect(report.params).toMatchObject({ n: 5, ci: true, runs: 2, warmup: 1 });
  });

  it('makes the cache cold before every call when the scenario reads disk, in its own dir', async () => {
    const seen: { mode: CacheMode; dir: string }[] = [];
    const { scenario } = scripted(values, { readsDisk: true });
    const { report, notes } = await runScenario(scenario, {
      ...quiet,
      runs: 3,
      warmup: 1,
      coldCacheImpl: async (mode, dir) => {
        seen.push({ mode, dir });
        return 'evicted';
      },
    });
    expect(seen).toHaveLength(12);
    expect(seen.every((s) => s.mode === 'evict')).toBe(true); // the default
    expect(new Set(seen.map((s) => s.dir)).size).toBe(1);
    expect(seen[0]!.dir).toMatch(/strata-bench-fake-/);
    expect(report.params.cache).toBe('evicted');
    expect(notes.join(' ')).toMatch(
      /the bench's own files evicted before every run .*posix_fadvise/,
    );
  });

  it('says the whole cache was dropped with --drop-caches', async () => {
    const { scenario } = scripted(values, { readsDisk: true });
    const modes = new Set<CacheMode>();
    const { report, notes } = await runScenario(scenario, {
      ...quiet,
      runs: 3,
      cache: 'drop',
      coldCacheImpl: async (mode) => {
        modes.add(mode);
        return 'dropped';
      },
    });
    expect([...modes]).toEqual(['drop']);
    expect(report.params.cache).toBe('dropped');
    expect(notes.join(' ')).toMatch(/whole machine's dropped/);
  });

  it('reports the warmest state seen over the runs', async () => {
    const { scenario } = scripted(values, { readsDisk: true });
    let calls = 0;
    const { report } = await runScenario(scenario, {
      ...quiet,
      runs: 3,
      cache: 'drop',
      // Root lost midway (or /proc read-only): one run only had its files evicted.
      coldCacheImpl: async () => (++calls === 2 ? 'evicted' : 'dropped'),
    });
    expect(report.params.cache).toBe('evicted');
  });

  it('says the cache was warm when it cannot make it cold', async () => {
    const { scenario } = scripted(values, { readsDisk: true });
    const { report, notes } = await runScenario(scenario, {
      ...quiet,
      runs: 3,
      coldCacheImpl: async () => 'warm',
    });
    expect(report.params.cache).toBe('warm');
    expect(notes.join(' ')).toMatch(/cache was warm/);
  });

  it('never touches the cache for a scenario that does not read disk', async () => {
    let drops = 0;
    const { scenario } = scripted(values);
    const { report, notes } = await runScenario(scenario, {
      ...quiet,
      runs: 3,
      coldCacheImpl: async () => {
        drops++;
        return 'evicted';
      },
    });
    expect(drops).toBe(0);
    expect(report.params.cache).toBe('warm');
    expect(notes).toEqual([]);
  });

  it('turns samples into per-variant median metrics and hands them to metrics()', async () => {
    let seen: number[] = [];
    const scenario = defineScenario({
      name: 'samples',
      description: '',
      params: { full: {}, ci: {} },
      variants: [higher('x', 'ops/s')],
      run: (_v, ctx) => ({ value: 1, samples: { rss_mib: 10 + ctx.run } }),
      metrics: (results) => {
        seen = results.samples('x', 'rss_mib');
        return {};
      },
    });
    const { report } = await runScenario(scenario, { ...quiet, runs: 3, warmup: 1 });
    expect(seen).toEqual([10, 11, 12]);
    expect(report.metrics).toEqual({ 'x.rss_mib': 11 });
  });

  it('tears down and removes the temp dir when a run fails', async () => {
    let dir = '';
    let tornDown = false;
    const scenario = defineScenario({
      name: 'boom',
      description: '',
      params: { full: {}, ci: {} },
      variants: [higher('x', 'ops/s')],
      setup: (ctx) => {
        dir = ctx.dir;
      },
      run: () => {
        throw new Error('disk on fire');
      },
      teardown: () => {
        tornDown = true;
      },
    });
    await expect(runScenario(scenario, quiet)).rejects.toThrow('disk on fire');
    expect(tornDown).toBe(true);
    expect(dir).not.toBe('');
    expect(existsSync(dir)).toBe(false);
  });

  it('rejects a run that returns a non-finite number', async () => {
    const scenario = defineScenario({
      name: 'nan',
      description: '',
      params: { full: {}, ci: {} },
      variants: [higher('x', 'ops/s')],
      run: () => Number.NaN,
    });
    await expect(runScenario(scenario, quiet)).rejects.toThrow(/not a finite number/);
  });
});

describe('resolveScenario', () => {
  const base = {
    name: 's',
    description: '',
    params: { full: { sizes: [1, 2] }, ci: { sizes: [1] } },
    run: () => 1,
  };

  it('derives variants and ratios from the parameters', () => {
    const scenario = defineScenario({
      ...base,
      variants: (p) => p.sizes.map((s) => higher(`v${s}`, 'x')),
      ratios: (p) => (p.sizes.length > 1 ? ['v2/v1'] : []),
    });
    expect(resolveScenario(scenario, { sizes: [1, 2] })).toEqual({
      variants: [higher('v1', 'x'), higher('v2', 'x')],
      ratios: ['v2/v1'],
      targets: {},
    });
    expect(resolveScenario(scenario, { sizes: [1] }).ratios).toEqual([]);
  });

  it('rejects duplicate variants, a / in a name, and ratios of unknown variants', () => {
    const dup = defineScenario({ ...base, variants: [higher('a', 'x'), higher('a', 'x')] });
    expect(() => resolveScenario(dup, {})).toThrow(/duplicate variant 'a'/);
    const slash = defineScenario({ ...base, variants: [higher('a/b', 'x')] });
    expect(() => resolveScenario(slash, {})).toThrow(/no '\/'/);
    const ratio = defineScenario({ ...base, variants: [higher('a', 'x')], ratios: ['a/zz'] });
    expect(() => resolveScenario(ratio, {})).toThrow(/unknown variant 'zz'/);
  });

  it('rejects parameters named like the harness ones', () => {
    const clash = defineScenario({ ...base, variants: [higher('a', 'x')] });
    expect(() => resolveScenario(clash, { runs: 5 })).toThrow(/reserved/);
    expect(() => resolveScenario(clash, { order: 'x' })).toThrow(/'order' is reserved/);
    expect(() => resolveScenario(clash, { orderSeed: 1 })).toThrow(/'orderSeed' is reserved/);
  });
});
