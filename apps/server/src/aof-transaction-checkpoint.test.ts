import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AofPosition, AppendOnlyFile, comparePositions } from '@strata/aof';
import { Store } from '@strata/hlog';
import { RespServer } from '@strata/resp';
import { aofCommandLog, Databases } from '@strata/store';
import { Redis } from 'ioredis';
import { afterEach, expect, test } from 'vitest';
import { Logger } from './logger.js';

/**
 * The case the collections crash test found, made to happen: a MULTI whose
 * SADD has to read its set from the disk, and a checkpoint of the store
 * started right after the HINCRBY before it. The checkpoint seals the log
 * while the SADD waits: it holds the HINCRBY, and its AOF position is the
 * SADD's record, inside the transaction. After a crash, replay must apply
 * the SADD and RPUSH and not the HINCRBY (replay used to skip the whole
 * transaction by its MULTI's offset: the SADD and RPUSH were lost).
 */

const dirs: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true, maxRetries: 5 });
});

const quiet = () => new Logger({ level: 'warning', write: () => undefined });

/** strata-server's AOF wiring, in process; `onAppend` sees each command as it is logged. */
async function open(dir: string, onAppend?: (argv: readonly Buffer[], at: AofPosition) => void) {
  const databases = new Databases({
    dir,
    count: 1,
    logger: quiet(),
    store: { memory: 64 * 1024, pageSize: 16 * 1024, segmentSize: 64 * 1024 },
    collectionMemory: 16 * 1024,
  });
  const warnings: string[] = [];
  const aof = await AppendOnlyFile.open({
    dir: join(dir, 'appendonlydir'),
    policy: 'always',
    transactionWaitMs: 300,
    logger: { warn: (m) => warnings.push(m) },
  });
  databases.useAof(aof);
  const log = aofCommandLog(
    () => aof,
    () => resp.keyspace,
  );
  const resp: RespServer = new RespServer({
    databases,
    commandLog: {
      append(db, argv) {
        const at = aof.position();
        const p = log.append(db, argv);
        onAppend?.(argv, at);
        return p;
      },
    },
  });
  await aof.replay((db, argv) => resp.execute(db, argv));
  const { port } = await resp.listen(0);
  const stack = {
    aof,
    databases,
    warnings,
    resp,
    client: null as unknown as Redis,
    store: () => resp.keyspace.get(0) as Store,
    crashed: false,
  };
  // A crashed one (its store abandoned) is left as it is.
  cleanups.push(async () => {
    if (!stack.crashed) await resp.close();
  });
  const client = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0 });
  await client.connect();
  cleanups.push(async () => client.disconnect());
  stack.client = client;
  return stack;
}

test('a checkpoint sealed while a MULTI waits for the disk: after a crash the transaction is there once, whole', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'strata-aof-tx-'));
  dirs.push(dir);
  let checkpoint: Promise<number> | null = null;
  const positions = new Map<string, AofPosition>();
  let armed = false;
  const a = await open(dir, (argv, at) => {
    const name = argv[0]!.toString().toUpperCase();
    if (armed) positions.set(name, at);
    if (armed && name === 'HINCRBY') checkpoint = a.store().checkpoint();
  });
  expect(a.store()).toBeInstanceOf(Store);
  // A set of a few MiB: its record is a blob on the disk once evicted from the cache.
  const PRE = 60_000;
  for (let i = 0; i < PRE; i += 5_000) {
    await a.client.sadd(
      's',
      ...Array.from({ length: 5_000 }, (_, j) => `member-${i + j}-`.padEnd(48, 'x')),
    );
  }
  await a.client.hset('h', 'n', '0');
  await a.client.rpush('l', 'start');
  // Touching h and l evicts s (written back); wait for that write.
  await a.resp.keyspace.writeBack(0);
  armed = true;
  const replies = await a.client
    .multi()
    .hincrby('h', 'n', 1)
    .sadd('s', 'new')
    .rpush('l', 'x')
    .exec();
  expect(replies).toEqual([
    [null, 1],
    [null, 1],
    [null, 2],
  ]);
  expect(checkpoint).not.toBeNull();
  await checkpoint;
  // The precondition: the checkpoint's position fell inside the transaction (at its SADD).
  const entry = a.aof.checkpointOf(0)!;
  expect(comparePositions(entry.position, positions.get('MULTI')!)).toBeGreaterThan(0);
  expect(comparePositions(entry.position, positions.get('EXEC')!)).toBeLessThanOrEqual(0);

  // A crash: the store stops where it is; the AOF (appendfsync always) has every reply's command.
  a.crashed = true;
  await a.store().abandon();
  a.resp.keyspace.collections(0)?.dispose();
  a.client.disconnect();

  const b = await open(dir);
  expect(await b.client.hget('h', 'n')).toBe('1');
  expect(await b.client.sismember('s', 'new')).toBe(1);
  expect(await b.client.scard('s')).toBe(PRE + 1);
  expect(await b.client.lrange('l', 0, -1)).toEqual(['start', 'x']);
}, 60_000);

test('a checkpoint inside a MULTI whose FLUSHDB waits for that checkpoint: no deadlock, and recovery has the transaction', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'strata-aof-tx-'));
  dirs.push(dir);
  let saving: Promise<void> | null = null;
  const a = await open(dir, (argv) => {
    // A checkpoint (with its AOF rotation) starts right after the HSET; the
    // FLUSHDB after it waits for that checkpoint, which waits for the EXEC.
    if (argv[0]!.toString().toUpperCase() === 'HSET' && saving === null) {
      saving = a.databases.save(0, a.store());
    }
  });
  await a.client.set('before', '1');
  const replies = await a.client.multi().hset('h', 'f', '1').flushdb().set('after', '1').exec();
  expect(replies).toEqual([
    [null, 1],
    [null, 'OK'],
    [null, 'OK'],
  ]);
  await saving;
  // The checkpoint could not wait for the EXEC (which waited for it): recorded after its wait.
  expect(a.warnings.join('\n')).toMatch(/inside a MULTI\/EXEC transaction that has not ended/);
  await a.client.set('later', '1');
  a.crashed = true;
  await a.store().abandon();
  a.resp.keyspace.collections(0)?.dispose();
  a.client.disconnect();

  const b = await open(dir);
  expect((await b.client.keys('*')).sort()).toEqual(['after', 'later']);
}, 60_000);
