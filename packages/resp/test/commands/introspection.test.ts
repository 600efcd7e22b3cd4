import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type TestServer } from '../support/test-server.js';

/**
 * What the recorded compat cases cannot show: the percentiles INFO
 * latencystats derives from the LATENCY HISTOGRAM buckets. (OBJECT FREQ
 * and IDLETIME over time: access-clock.test.ts.)
 */
let t: TestServer;
beforeAll(async () => {
  t = await startServer();
});
afterAll(async () => {
  await t.stop();
});

describe('INFO latencystats', () => {
  test('percentiles are bucket bounds, in order, for the configured percentiles', async () => {
    const c = createClient({ socket: { port: t.port, host: '127.0.0.1' } });
    await c.connect();
    try {
      await c.sendCommand(['CONFIG', 'RESETSTAT']);
      for (let i = 0; i < 50; i++) await c.ping();
      await c.configSet('latency-tracking-info-percentiles', '0 50 100');
      const info = await c.info('latencystats');
      const line = info.split('\r\n').find((l) => l.startsWith('latency_percentiles_usec_ping:'));
      expect(line).toMatch(
        /^latency_percentiles_usec_ping:p0=\d+\.000,p50=\d+\.000,p100=\d+\.000$/,
      );
      const [p0, p50, p100] = [...line!.matchAll(/=(\d+)\.000/g)].map((m) => Number(m[1]));
      expect(p0).toBeLessThanOrEqual(p50!);
      expect(p50).toBeLessThanOrEqual(p100!);
      const histogram = (await c.sendCommand(['LATENCY', 'HISTOGRAM', 'ping'])) as unknown[];
      expect(JSON.stringify(histogram)).toContain(String(p100));
    } finally {
      await c.configSet('latency-tracking-info-percentiles', '50 99 99.9');
      await c.quit();
    }
  });
});
