import { describe, expect, it } from 'vitest';
import { type BenchReport, renderReport, reportToJson } from './report.js';

const report: BenchReport = {
  scenario: 'demo',
  params: { fileBytes: 1024, readSizes: [16, 32], ci: true, runs: 2, warmup: 1, cache: 'warm' },
  machine: {
    cpus: 2,
    cpuModel: 'Test CPU',
    node: 'v20.0.0',
    totalMemory: 2 * 2 ** 30,
    platform: 'linux',
    arch: 'x64',
    release: '6.0',
  },
  variants: [
    { name: 'fs-16k', unit: 'MB/s', median: 1500.25, min: 1400, max: 1600.4 },
    { name: 'file-16k-q1', unit: 'MB/s', median: 1200, min: 1100, max: 1300 },
  ],
  ratios: [{ name: 'file-16k-q1/fs-16k', median: 0.8, min: 0.75, max: 0.85 }],
  metrics: { best_plain_mbps: 1500.25 },
};

describe('renderReport', () => {
  it('prints header, notes, aligned variant, ratio and metric tables', () => {
    const text = renderReport(report, { description: 'a demo', notes: ['page cache was warm'] });
    const lines = text.split('\n');
    expect(lines[0]).toBe('demo - a demo');
    expect(lines[1]).toBe('machine: 2 x Test CPU, 2.0 GiB, node v20.0.0, linux-x64');
    expect(lines[2]).toBe(
      'params: fileBytes=1024 readSizes=16,32 ci=true runs=2 warmup=1 cache=warm',
    );
    expect(lines[3]).toBe('note: page cache was warm');
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

describe('reportToJson', () => {
  it('round-trips the report, keys in the agreed order', () => {
    const json = JSON.parse(reportToJson(report));
    expect(json).toEqual(report);
    expect(Object.keys(json)).toEqual([
      'scenario',
      'params',
      'machine',
      'variants',
      'ratios',
      'metrics',
    ]);
  });
});
