import { describe, expect, it } from 'vitest';
import { type BenchReport, renderReport, reportToJson } from './report.js';

const report: BenchReport = {
  scenario: 'demo',
  description: 'a demo',
  timestamp: '2026-12-06T07:30:00.000Z',
  commit: { sha: '81c1eb0a1234567890abcdef1234567890abcdef', dirty: true },
  params: { fileBytes: 1024, readSizes: [16, 32], ci: true, runs: 2, warmup: 1, cache: 'warm' },
  machine: {
    hostname: 'bench-vm',
    cpus: 2,
    cpuModel: 'Test CPU',
    node: 'v20.0.0',
    totalMemory: 2 * 2 ** 30,
    platform: 'linux',
    arch: 'x64',
    release: '6.0',
  },
  variants: [
    {
      name: 'fs-16k',
      unit: 'MB/s',
      higherIsBetter: true,
      median: 1500.25,
      min: 1400,
      max: 1600.4,
      values: [1400, 1600.4],
      samples: {},
    },
    {
      name: 'file-16k-q1',
      unit: 'MB/s',
      higherIsBetter: true,
      median: 1200,
      min: 1100,
      max: 1300,
      values: [1100, 1300],
      samples: { rss_mib: [10, 12] },
    },
  ],
  ratios: [
    {
      name: 'file-16k-q1/fs-16k',
      higherIsBetter: true,
      median: 0.8,
      min: 0.75,
      max: 0.85,
      values: [0.75, 0.85],
    },
  ],
  metrics: { best_plain_mbps: 1500.25 },
};

describe('renderReport', () => {
  it('prints header, notes, aligned variant, ratio and metric tables', () => {
    const text = renderReport(report, { description: 'a demo', notes: ['page cache was warm'] });
    const lines = text.split('\n');
    expect(lines[0]).toBe('demo - a demo');
    expect(lines[1]).toBe('machine: 2 x Test CPU, 2.0 GiB, node v20.0.0, linux-x64 (bench-vm)');
    expect(lines[2]).toBe('commit: 81c1eb0a12 (dirty), 2026-12-06T07:30:00.000Z');
    expect(lines[3]).toBe(
      'params: fileBytes=1024 readSizes=16,32 ci=true runs=2 warmup=1 cache=warm',
    );
    expect(lines[4]).toBe('note: page cache was warm');
    expect(text).toContain(
      [
        'variant      unit  median   min   max',
        '-----------  ----  ------  ----  ----',
        'fs-16k       MB/s    1500  1400  1600',
        'file-16k-q1  MB/s    1200  1100  1300',
      ].join('\n'),
    );
    expect(text).toMatch(/file-16k-q1\/fs-16k\s+0\.800\s+0\.750\s+0\.850/);
    expect(text).toMatch(/best_plain_mbps\s+1500/);
  });
});

describe('ratio targets', () => {
  const ratio = report.ratios[0]!;

  it('adds target and met columns when a ratio has a target', () => {
    const withTarget: BenchReport = {
      ...report,
      ratios: [
        { ...ratio, target: 0.7 },
        { ...ratio, name: 'fs-16k/file-16k-q1', median: 1.25, target: 1.5 },
        { ...ratio, name: 'x/y', higherIsBetter: false, median: 1.1, target: 1.2 },
      ],
    };
    const text = renderReport(withTarget);
    expect(text).toMatch(/ratio\s+median\s+min\s+max\s+target\s+met/);
    expect(text).toMatch(/file-16k-q1\/fs-16k\s+0\.800\s+0\.750\s+0\.850\s+>= 0\.700\s+yes/);
    expect(text).toMatch(/fs-16k\/file-16k-q1\s+1\.250\s+0\.750\s+0\.850\s+>= 1\.500\s+NO/);
    expect(text).toMatch(/x\/y\s+1\.100\s+0\.750\s+0\.850\s+<= 1\.200\s+yes/);
  });

  it('leaves the columns out when no ratio has a target', () => {
    expect(renderReport(report)).not.toMatch(/target/);
  });
});

describe('reportToJson', () => {
  it('round-trips the report, keys in the agreed order', () => {
    const json = JSON.parse(reportToJson(report));
    expect(json).toEqual(report);
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
  });
});
