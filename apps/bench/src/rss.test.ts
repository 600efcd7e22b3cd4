import { describe, expect, it } from 'vitest';
import { bytesToMiB, peakRssBytes, rssBytes, startRssSampler } from './rss.js';

describe('rss helpers', () => {
  it('reports a peak at least as large as the current RSS', () => {
    const now = rssBytes();
    expect(now).toBeGreaterThan(0);
    expect(peakRssBytes()).toBeGreaterThanOrEqual(now * 0.5); // sampled at different moments
  });

  it('samples the peak of a phase', async () => {
    const sampler = startRssSampler(1);
    const held = Buffer.alloc(32 * 1024 * 1024, 1); // touched, so resident
    await new Promise((resolve) => setTimeout(resolve, 20));
    const peak = sampler.stop();
    expect(held[0]).toBe(1);
    expect(peak).toBeGreaterThan(0);
    expect(bytesToMiB(peak)).toBeCloseTo(peak / 1048576);
  });
});
