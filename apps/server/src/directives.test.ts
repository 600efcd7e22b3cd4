import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BAD_LINES } from '../test/bad-config-lines.js';
import { DEFAULT_CONFIG } from './config.js';
import { applyConfigText } from './config-file.js';
import { type DirectiveState, directiveState } from './directives.js';
import { nodeConfigFiles } from './load-config.js';

const DEBIAN = join(import.meta.dirname, '../test/fixtures/debian-redis.conf');

async function load(text: string): Promise<DirectiveState> {
  const state = directiveState({ ...DEFAULT_CONFIG });
  await applyConfigText(state, text, nodeConfigFiles);
  return state;
}

async function reason(line: string): Promise<string> {
  try {
    await load(line);
  } catch (e) {
    return (e as { reason: string }).reason;
  }
  throw new Error(`no error for ${line}`);
}

/** The last value given of a Redis parameter, as CONFIG GET will print it. */
const value = (s: DirectiveState, name: string) =>
  s.parameters.filter((p) => p.name === name).at(-1)?.text;

describe("settings strata-server acts on, checked with resp's parameter table", () => {
  test('every one of them, later lines winning, names in any case', async () => {
    const s = await load(`
port 7000
PORT 7001
bind 0.0.0.0 -::1
dir /var/lib/strata
memory 128mb
page-size 64kb
segment-size 256MB
index-size 1mb
mutable-fraction 0.5
databases 4
requirepass "s3cret"
maxclients 50
checkpoint-interval 60
log-level warning
appendonly YES
appendfsync always
appendfilename strata.aof
appenddirname aofdir
aof-missing-checkpoint rebuild
compaction-threshold 1gb
commit-interval 250
notify-keyspace-events KEx
protected-mode no
daemonize yes
pidfile /run/strata.pid
logfile /var/log/strata.log
import-rdb /srv/redis/dump.rdb
import-merge yes
import-serve YES
`);
    expect(s.config).toEqual({
      port: 7001,
      bind: ['0.0.0.0', '-::1'],
      dir: '/var/lib/strata',
      memory: 128 * 1024 ** 2,
      defaultMemory: 128 * 1024 ** 2,
      maxmemory: 0,
      pageSize: 64 * 1024,
      segmentSize: 256 * 1024 ** 2,
      indexSize: 1024 ** 2,
      mutableFraction: 0.5,
      databases: 4,
      requirepass: 's3cret',
      maxclients: 50,
      save: [{ seconds: 60, changes: 1 }],
      logLevel: 'warning',
      appendonly: true,
      appendfsync: 'always',
      appendfilename: 'strata.aof',
      appenddirname: 'aofdir',
      aofMissingCheckpoint: 'rebuild',
      compactionThreshold: 1024 ** 3,
      commitInterval: 250,
      notifyKeyspaceEvents: 'xKE',
      protectedMode: false,
      daemonize: true,
      pidfile: '/run/strata.pid',
      logfile: '/var/log/strata.log',
      importRdb: '/srv/redis/dump.rdb',
      importMerge: true,
      importServe: true,
    });
    expect(s.unused).toEqual(new Set());
    expect(value(s, 'appendonly')).toBe('yes');
  });

  test('aof-missing-checkpoint takes refuse or rebuild only', async () => {
    expect(await reason('aof-missing-checkpoint yes')).toBe(
      'argument(s) must be one of the following: refuse, rebuild',
    );
  });

  test('the import switches take yes or no only', async () => {
    expect(await reason('import-merge maybe')).toBe("argument must be 'yes' or 'no'");
    expect(await reason('import-serve 1')).toBe("argument must be 'yes' or 'no'");
  });

  test("Redis's spellings: loglevel, maxmemory as the log memory, aliases", async () => {
    const s = await load('loglevel verbose\nmaxmemory 256mb\nslaveof no one\nlua-time-limit 100');
    expect(s.config).toMatchObject({ logLevel: 'verbose', memory: 256 * 1024 ** 2 });
    expect(value(s, 'replicaof')).toBe('no one');
    expect(value(s, 'busy-reply-threshold')).toBe('100');
    // 0 is Redis's "no limit": the log memory stays.
    expect((await load('maxmemory 0')).config.memory).toBe(DEFAULT_CONFIG.memory);
  });

  test('an empty requirepass means none; bind "" none at all; * every interface', async () => {
    const c = (await load('requirepass x\nrequirepass ""\nbind ""')).config;
    expect(c.requirepass).toBeNull();
    expect(c.bind).toEqual([]);
    expect((await load('bind * -::*')).config.bind).toEqual(['*', '-::*']);
  });

  test('save lines add up, the first replacing the default, save "" empties them', async () => {
    expect((await load('save 3600 1 300 100')).config.save).toEqual([
      { seconds: 3600, changes: 1 },
      { seconds: 300, changes: 100 },
    ]);
    const s = await load('save 3600 1\nsave 300 100\nsave 60 10000');
    expect(value(s, 'save')).toBe('3600 1 300 100 60 10000');
    expect(s.config.save).toHaveLength(3);
    expect((await load('save 3600 1\nsave ""')).config.save).toEqual([]);
    expect((await load('save ""\nsave 60 1')).config.save).toEqual([{ seconds: 60, changes: 1 }]);
    expect((await load('checkpoint-interval 0')).config.save).toEqual([]);
  });

  test('client-output-buffer-limit lines are kept in order (each sets its class)', async () => {
    const s = await load(
      'client-output-buffer-limit normal 0 0 0\nclient-output-buffer-limit pubsub 32mb 8mb 60',
    );
    expect(s.parameters).toEqual([
      { name: 'client-output-buffer-limit', text: 'normal 0 0 0' },
      { name: 'client-output-buffer-limit', text: 'pubsub 32mb 8mb 60' },
    ]);
  });
});

describe('directives strata-server does not act on', () => {
  test('are checked, kept for CONFIG GET and named once', async () => {
    const s = await load(
      'hz 20\ntcp-backlog 1024\nhz 30\nlist-max-ziplist-entries 512\nslave-read-only no\ndbfilename x.rdb',
    );
    // hz and tcp-backlog are acted on (resp's expiry cycle, the listen backlog).
    expect([...s.unused]).toEqual(['list-max-ziplist-entries', 'replica-read-only', 'dbfilename']);
    expect(value(s, 'hz')).toBe('30');
    expect(value(s, 'replica-read-only')).toBe('no');
  });

  test("Debian's redis.conf (71 directives): every line reads, only dir and port matter here", async () => {
    const text = await readFile(DEBIAN, 'utf8');
    const s = await load(text);
    expect(s.config).toMatchObject({
      port: 6379,
      bind: ['127.0.0.1', '-::1'],
      dir: '/var/lib/redis',
      protectedMode: true,
      daemonize: true,
      pidfile: '/run/redis/redis-server.pid',
      logfile: '/var/log/redis/redis-server.log',
      databases: 16,
      logLevel: 'notice',
      appendonly: false,
    });
    expect(s.parameters).toHaveLength(71);
    expect(s.unused).not.toContain('tcp-backlog');
    expect(s.unused).toContain('jemalloc-bg-thread');
    expect(s.unused).not.toContain('bind');
    expect(value(s, 'proc-title-template')).toBe('{title} {listen-addr} {server-mode}');
    expect(value(s, 'notify-keyspace-events')).toBe('');
  });
});

/** Lines Redis takes that strata-server refuses, and why. */
const REFUSED: readonly (readonly [string, string])[] = [
  ['replicaof 10.0.0.1 6379', 'strata-server does not replicate: replicaof must be "no one"'],
  ['slaveof 10.0.0.1 6379', 'strata-server does not replicate'],
  ['rename-command flushall ""', 'rename-command is not supported'],
  ['loadmodule /usr/lib/redis/rejson.so', 'strata-server cannot load Redis modules'],
  ['foo.bar 1', 'Module Configuration detected without loadmodule directive'],
  ['cluster-enabled yes', 'strata-server has no cluster mode'],
  ['tls-port 6380', 'strata-server has no TLS'],
  ['sentinel', 'strata-server has no sentinel mode'],
  // strata's own limits, after Redis's checks.
  ['databases 100000', 'Invalid number of databases (1 to 65536)'],
  ['appendfilename ../x.aof', "appendfilename can't be a path, just a filename"],
  ['dir ""', 'argument must not be empty'],
  ['memory 1.5gb', 'argument must be a memory value'],
  ['page-size 3000', 'argument must be a power of two'],
  ['mutable-fraction 1.5', 'argument must be a number between 0 and 1'],
  ['memory', 'wrong number of arguments'],
  ['maxmemory 100', 'argument must be between 1kb and'],
];

describe('bad lines', () => {
  test.each(BAD_LINES)("%s: Redis's reason", async (line, why) => {
    expect(await reason(line)).toContain(why);
  });

  test.each(REFUSED)('%s: refused', async (line, why) => {
    expect(await reason(line)).toContain(why);
  });
});
