// A process that writes to an embedded database and then waits to be
// killed (crash.test.ts). Runs the built package, as a user's program would.
import { open } from '../dist/index.js';

const [mode, dir] = process.argv.slice(2);
const say = (line) => process.stdout.write(`${line}\n`);
// Nothing durable but what the test asks for (sync 'no', no timer), and a
// log small enough that the history reaches the device.
const SMALL_UNSYNCED = { sync: 'no', checkpointEveryMs: 0, memory: 64 << 10, pageSize: 16 << 10 };

if (mode === 'lock') {
  try {
    await open(dir);
    say('opened');
  } catch (e) {
    say(e.code);
  }
  process.exit(0);
}

if (mode === 'write' || mode === 'write-sync-no') {
  const db = await open(dir, mode === 'write' ? {} : { sync: 'no' });
  await db.set('k', 'v');
  await db.hset('h', { f: '1' });
  await db.transaction((tx) => {
    tx.incr('n');
    tx.rpush('l', 'a', 'b');
  });
  await Promise.all(Array.from({ length: 50 }, (_, i) => db.set(`c${i}`, `v${i}`)));
  say('acked');
}

if (mode === 'aof-write') {
  // With the append-only file (sync 'always': each write fsynced in the AOF
  // before it resolves), a history across types, then killed. No commit
  // point (commitEveryMs 0): the AOF replays all of it.
  const db = await open(dir, {
    appendOnly: true,
    commitEveryMs: 0,
    memory: 64 << 10,
    pageSize: 16 << 10,
  });
  for (let i = 0; i < 200; i++) await db.set(`s${i}`, `v${i}`.repeat(30));
  await db.hset('h', { f: '1', g: '2' });
  await db.transaction((tx) => {
    tx.incr('n');
    tx.rpush('l', 'a', 'b');
  });
  await db.set('ttl', 'x', { ttlMs: 3_600_000 });
  await db.del('s0');
  await Promise.all(Array.from({ length: 50 }, (_, i) => db.set(`c${i}`, `v${i}`)));
  say('acked');
}

if (mode === 'tx-checkpoint') {
  // A transaction whose commands read 200 hashes from the disk, one after
  // another, and a checkpoint asked for while it runs: the checkpoint must
  // hold all of it or none of it. Nothing is checkpointed after it (sync
  // 'no', no timer, no close).
  const db = await open(dir, SMALL_UNSYNCED);
  await db.transaction((tx) => {
    for (let i = 0; i < 200; i++) tx.hset(`h${i}`, { f: '0' });
  });
  // Later writes push those hashes out of the log's memory and the collection cache.
  await db.batch(
    Array.from({ length: 3000 }, (_, i) => ({ type: 'put', key: `k${i}`, value: 'x'.repeat(20) })),
  );
  await db.transaction((tx) => {
    for (let i = 0; i < 2000; i++) tx.hset(`other${i}`, { f: 'y'.repeat(60) });
  });
  await db.checkpoint();
  const tx = db.transaction((t) => {
    t.incr('n');
    for (let i = 0; i < 200; i++) t.command('HINCRBY', `h${i}`, 'f', '1');
  });
  await new Promise((resolve) => setImmediate(resolve));
  await db.checkpoint();
  say('checkpointed');
  await tx;
}

if (mode === 'everysec') {
  // Acknowledged at once; durable once the next second's log commit ran.
  const db = await open(dir, { sync: 'everysec' });
  const store = () => db.server.keyspace.get(0);
  const before = store().stats().logCommits;
  await db.set('k', 'v');
  say('acked');
  await new Promise((resolve) => {
    const t = setInterval(() => {
      if (store().stats().logCommits > before) {
        clearInterval(t);
        resolve();
      }
    }, 20);
  });
  say('synced');
}

if (mode === 'mixed') {
  // An ordered history across strings and collections (issue 22's mixed
  // state): a checkpoint after round 100, then more rounds and filler, so
  // the log after the checkpoint reaches the device while the collections'
  // changes wait in the object cache. Then killed.
  const db = await open(dir, SMALL_UNSYNCED);
  for (let i = 0; i < 300; i++) {
    await db.rpush('mylist', String(i));
    await db.hset('myhash', { [`f${i}`]: String(i) });
    await db.set(`str${i}`, String(i));
    if (i === 99) await db.checkpoint();
  }
  await db.batch(
    Array.from({ length: 2000 }, (_, i) => ({
      type: 'put',
      key: `fill${i}`,
      value: 'x'.repeat(100),
    })),
  );
  say('ready');
}

// Wait to be killed: no close(), no checkpoint on the way out.
setInterval(() => undefined, 1000);
