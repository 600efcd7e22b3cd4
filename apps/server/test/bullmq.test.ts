import { fork } from 'node:child_process';
import { FlowProducer, type Job, Queue, QueueEvents, Worker } from 'bullmq';
import { describe, expect, test } from 'vitest';
import { serverForFile } from './strata-process.js';

/**
 * BullMQ (its Lua scripts, blocking markers, streams of events) against a
 * real strata-server process: 10,000 jobs with retries and backoff, delayed
 * jobs, priorities, rate limiting, a job scheduler, a flow, QueueEvents,
 * and a stalled job recovered after its worker's process is killed.
 */
const server = serverForFile();

const connection = () => ({ host: '127.0.0.1', port: server.port, maxRetriesPerRequest: null });

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('BullMQ on strata-server', () => {
  test('10,000 jobs: retries with backoff, delayed jobs, QueueEvents; every job accounted for', async () => {
    const name = 'bulk';
    const queue = new Queue(name, { connection: connection() });
    const events = new QueueEvents(name, { connection: connection() });
    await events.waitUntilReady();
    let heard = 0;
    events.on('completed', () => heard++);
    const results = new Map<string, number>();
    const worker = new Worker(
      name,
      async (job: Job<{ n: number; flaky: boolean; broken: boolean }>) => {
        if (job.data.broken) throw new Error('always fails');
        if (job.data.flaky && job.attemptsMade < 2) throw new Error('fails twice');
        return job.data.n * 2;
      },
      { connection: connection(), concurrency: 20 },
    );
    worker.on('completed', (job, r: number) => results.set(job.id!, r));
    try {
      const N = 10_000;
      for (let from = 0; from < N; from += 500) {
        await queue.addBulk(
          Array.from({ length: 500 }, (_, i) => {
            const n = from + i;
            return {
              name: 'j',
              data: { n, flaky: n % 100 === 0, broken: n % 1000 === 1 },
              opts: {
                attempts: 3,
                backoff: { type: 'exponential', delay: 10 },
                ...(n % 500 === 7 ? { delay: 300 } : {}),
              },
            };
          }),
        );
      }
      const broken = N / 1000;
      await until(async () => results.size + (await queue.getFailedCount()) >= N, 120_000);
      expect(results.size).toBe(N - broken);
      expect(await queue.getFailedCount()).toBe(broken);
      const failed = await queue.getFailed(0, -1);
      expect(failed.every((j) => j.attemptsMade === 3 && j.failedReason === 'always fails')).toBe(
        true,
      );
      for (const [, r] of results) expect(r % 2).toBe(0);
      const counts = await queue.getJobCounts();
      expect(counts).toMatchObject({
        completed: N - broken,
        failed: broken,
        waiting: 0,
        active: 0,
        delayed: 0,
      });
      // A delayed job ran no sooner than its delay.
      const delayed = (await queue.getCompleted(0, -1)).filter((j) => j.data.n % 500 === 7);
      expect(delayed).toHaveLength(N / 500);
      for (const j of delayed) expect(j.processedOn! - j.timestamp).toBeGreaterThanOrEqual(300);
      // A flaky job completed on its third attempt.
      const flaky = await queue.getJob(
        (await queue.getCompleted(0, -1)).find((j) => j.data.flaky)!.id!,
      );
      expect(flaky!.attemptsMade).toBe(3);
      await until(() => heard >= N - broken, 10_000);
    } finally {
      await worker.close();
      await events.close();
      await queue.close();
    }
  }, 180_000);

  test('priorities: a lower number is taken first', async () => {
    const name = 'prio';
    const queue = new Queue(name, { connection: connection() });
    const order: number[] = [];
    try {
      await queue.pause();
      for (const p of [5, 1, 3, 2, 4]) await queue.add('p', { p }, { priority: p });
      const worker = new Worker(
        name,
        async (job: Job<{ p: number }>) => {
          order.push(job.data.p);
        },
        { connection: connection(), concurrency: 1 },
      );
      await queue.resume();
      await until(() => order.length === 5, 10_000);
      await worker.close();
      expect(order).toEqual([1, 2, 3, 4, 5]);
    } finally {
      await queue.close();
    }
  });

  test('rate limiting: 15 jobs at 5 per 300 ms take at least 600 ms', async () => {
    const name = 'limited';
    const queue = new Queue(name, { connection: connection() });
    const done: number[] = [];
    const worker = new Worker(name, async () => done.push(Date.now()), {
      connection: connection(),
      concurrency: 5,
      limiter: { max: 5, duration: 300 },
    });
    try {
      const t0 = Date.now();
      await queue.addBulk(Array.from({ length: 15 }, (_, i) => ({ name: 'r', data: { i } })));
      await until(() => done.length === 15, 10_000);
      expect(Math.max(...done) - t0).toBeGreaterThanOrEqual(600);
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  test('a job scheduler repeats a job, and a flow runs its children before the parent', async () => {
    const queue = new Queue('repeat', { connection: connection() });
    const runs: number[] = [];
    const worker = new Worker('repeat', async () => runs.push(Date.now()), {
      connection: connection(),
    });
    const flow = new FlowProducer({ connection: connection() });
    const seen: string[] = [];
    const flowWorker = new Worker(
      'flow',
      async (job: Job<{ v: number }>) => {
        seen.push(job.name);
        if (job.name === 'parent') {
          const values = Object.values(await job.getChildrenValues<number>());
          return values.reduce((a, b) => a + b, 0);
        }
        return job.data.v;
      },
      { connection: connection() },
    );
    try {
      await queue.upsertJobScheduler('every-100ms', { every: 100, limit: 3 }, { name: 'tick' });
      const tree = await flow.add({
        name: 'parent',
        queueName: 'flow',
        children: [1, 2, 3].map((v) => ({ name: `child-${v}`, queueName: 'flow', data: { v } })),
      });
      await until(() => runs.length >= 3, 10_000);
      await until(async () => (await tree.job.getState()) === 'completed', 10_000);
      expect(seen.indexOf('parent')).toBe(3);
      expect((await flow.getFlow({ id: tree.job.id!, queueName: 'flow' })).job.returnvalue).toBe(6);
    } finally {
      await worker.close();
      await flowWorker.close();
      await flow.close();
      await queue.close();
    }
  });

  test('a stalled job is recovered after its worker process is killed', async () => {
    const name = 'stalls';
    const queue = new Queue(name, { connection: connection() });
    try {
      const job = await queue.add('s', { x: 1 });
      const child = fork(new URL('./fixtures/bullmq-stalling-worker.cjs', import.meta.url), [
        String(server.port),
        name,
      ]);
      await new Promise<void>((resolve, reject) => {
        child.on('message', (m) => (m === 'active' ? resolve() : reject(new Error(String(m)))));
      });
      child.kill('SIGKILL');
      expect(await job.getState()).toBe('active');
      const worker = new Worker(name, async () => 'recovered', {
        connection: connection(),
        stalledInterval: 500,
        lockDuration: 1000,
      });
      try {
        await until(async () => (await queue.getJob(job.id!))?.returnvalue === 'recovered', 15_000);
      } finally {
        await worker.close();
      }
    } finally {
      await queue.close();
    }
  }, 30_000);
});
