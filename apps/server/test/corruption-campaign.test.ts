import { randomInt } from 'node:crypto';
import { cp, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { client } from './crash-writer.js';
import {
  DAMAGE_KINDS,
  type Damage,
  damagedRanges,
  damageFile,
  SeededRandom,
} from './file-damage.js';
import { type KeyRead, readKeys } from './key-snapshot.js';
import { keysHit, type LogKeyMap, mapLogKeys } from './log-key-map.js';
import { StrataProcess, tempDir } from './strata-process.js';

/**
 * Issue 22's corruption campaign: a store with every type and most keys on
 * disk, stopped, then for each of N seeded random damages (bit flips,
 * zeroed ranges, truncations, deleted files) to one segment, checkpoint or
 * AOF file, restarted and read key by key. Each key is intact (the value
 * recorded before the stop), reported (an error reply), missing, or WRONG
 * (a value that differs: the one outcome never allowed). The server may
 * also refuse to start, with a message. Soundness: a key no damaged byte
 * could reach (no record of it on a damaged page, found by walking the
 * undamaged log; for AOF damage, a key written before the checkpoint) is
 * intact; a key that went missing was hit and the start-up logged a warning.
 *
 * STRATA_CAMPAIGN_SEED replays a campaign (the seed is printed);
 * STRATA_CAMPAIGN_N sets the damages per variant and kind of file (default 2, CI-sized);
 * STRATA_CAMPAIGN_TARGETS (`segment,checkpoint,aof`) limits the files damaged.
 */

const SEED = Number(process.env.STRATA_CAMPAIGN_SEED ?? randomInt(2 ** 31));
const N = Number(process.env.STRATA_CAMPAIGN_N ?? 2);
const TARGETS = (process.env.STRATA_CAMPAIGN_TARGETS ?? 'segment,checkpoint,aof').split(',');
const PAGE = 16 * 1024;
const SEGMENT = 256 * 1024;

type Target = 'segment' | 'checkpoint' | 'aof';

interface Variant {
  readonly name: string;
  readonly aof: boolean;
  /** How the store is stopped before the damage (NOSAVE: SHUTDOWN NOSAVE, no checkpoint). */
  readonly stop: 'SIGTERM' | 'SIGKILL' | 'NOSAVE';
}

/**
 * Without the AOF: a clean stop (its checkpoint covers everything), and
 * SHUTDOWN NOSAVE (the log synced, no checkpoint: recovery reads the log's
 * pages after the SAVE's checkpoint, where damage is mid-log damage); with
 * the AOF, kill -9 after writes that followed a checkpoint, so the AOF
 * holds them (a clean stop checkpoints and cuts the AOF down to nothing).
 */
const VARIANTS: readonly Variant[] = [
  { name: 'no AOF, SIGTERM', aof: false, stop: 'SIGTERM' },
  { name: 'no AOF, SHUTDOWN NOSAVE', aof: false, stop: 'NOSAVE' },
  { name: 'AOF always, kill -9', aof: true, stop: 'SIGKILL' },
];

interface Store {
  /** The undamaged directory, copied for each run. */
  readonly dir: string;
  readonly args: (dir: string) => string[];
  readonly expected: ReadonlyMap<string, string>;
  /** Keys written after the last checkpoint (what the AOF alone holds). */
  readonly tail: ReadonlySet<string>;
  readonly streams: readonly string[];
  readonly map: LogKeyMap;
  readonly files: ReadonlyMap<Target, readonly string[]>;
  /** Per AOF file, where its data ends (the zeros kept ahead of it follow). */
  readonly dataEnds: ReadonlyMap<string, number>;
}

type Outcome =
  | { kind: 'refused'; message: string }
  | {
      kind: 'served';
      reads: Map<string, KeyRead>;
      warnings: string[];
      /** Lines of any level that speak of a cut, a torn end or damage (for the failure message). */
      losses: string[];
      dbsizeError: string | null;
    }
  | { kind: 'died'; output: string };

interface Tally {
  runs: number;
  refused: number;
  intact: number;
  reported: number;
  missing: number;
  older: number;
  wrong: number;
  /** Keys no damaged byte could reach that were not intact. */
  unsound: number;
  /** Error replies that do not name their key (printed, not asserted). */
  unnamed: number;
  died: number;
}

const COUNTER_INCRS = 40;
const dirs: { remove(): Promise<void> }[] = [];
afterEach(() => StrataProcess.killAll());
afterAll(async () => {
  for (const d of dirs) await d.remove();
});

function serverArgs(variant: Variant, dir: string): string[] {
  return [
    ...['--port', '0', '--dir', dir, '--memory', '256kb', '--page-size', '16kb'],
    ...['--segment-size', '256kb', '--index-size', '64kb', '--checkpoint-interval', '0'],
    ...['--databases', '1', '--save', ''],
    ...(variant.aof ? ['--appendonly', 'yes', '--appendfsync', 'always'] : []),
  ];
}

/** Every type, most of it pushed out of the 256 KiB of log memory, then a checkpoint and a tail. */
async function buildStore(variant: Variant): Promise<Store> {
  const base = await tempDir('strata-campaign-');
  dirs.push(base);
  const dir = join(base.path, 'pristine');
  const args = (d: string) => serverArgs(variant, d);
  const { process: server, port } = await StrataProcess.start(args(dir));
  const r = client(port);
  await r.connect();
  const tail = new Set<string>();
  const streams = ['stream'];
  const batch = async (cmds: string[][], after = false) => {
    const p = r.pipeline();
    for (const [name, ...a] of cmds) {
      p.call(name!, ...a);
      if (after && a[0] !== undefined) tail.add(a[0]);
    }
    for (const [err] of (await p.exec()) ?? []) if (err) throw err;
  };
  const pad = (i: number) => `${i}:${'v'.repeat(40 + (i % 50))}`;
  await batch(Array.from({ length: 1500 }, (_, i) => ['SET', `s:${i}`, pad(i)]));
  await batch([['SET', 'big', `${'B'.repeat(200_000)}end`]]);
  await batch(
    Array.from({ length: 30 }, (_, i) => [
      'HSET',
      `h:${i}`,
      ...Array.from({ length: 20 }, (_, f) => [`f${f}`, `${i}.${f}`]).flat(),
    ]),
  );
  await batch(
    Array.from({ length: 20 }, (_, i) => [
      'RPUSH',
      `l:${i}`,
      ...Array.from({ length: 30 }, (_, e) => `${i}.${e}`),
    ]),
  );
  await batch(
    Array.from({ length: 20 }, (_, i) => [
      'SADD',
      `set:${i}`,
      ...Array.from({ length: 25 }, (_, e) => `m${i}.${e}`),
    ]),
  );
  await batch(
    Array.from({ length: 20 }, (_, i) => [
      'ZADD',
      `z:${i}`,
      ...Array.from({ length: 25 }, (_, e) => [String(e * 1.5), `m${i}.${e}`]).flat(),
    ]),
  );
  // More than a block's 1000 entries: sealed blocks on disk and an open tail.
  await batch(
    Array.from({ length: 2500 }, (_, i) => ['XADD', 'stream', `${i + 1}-0`, 'f', `e${i}`]),
  );
  await batch([
    ['XGROUP', 'CREATE', 'stream', 'g', '0'],
    ['XREADGROUP', 'GROUP', 'g', 'c1', 'COUNT', '7', 'STREAMS', 'stream', '>'],
  ]);
  await batch(
    Array.from({ length: 40 }, (_, i) => ['SET', `ttl:${i}`, `t${i}`, 'EX', '100000000']),
  );
  expect(await r.save()).toBe('OK');
  // After the checkpoint: in the log's tail and (with the AOF) in the AOF only.
  await batch(
    Array.from({ length: 300 }, (_, i) => ['SET', `after:${i}`, pad(i)]),
    true,
  );
  await batch(
    Array.from({ length: COUNTER_INCRS }, () => ['INCR', 'counter']),
    true,
  );
  await batch([['HSET', 'after:hash', 'a', '1', 'b', '2']], true);
  const keys = ((await r.keys('*')) as string[]).sort();
  const reads = await readKeys(r, keys);
  const expected = new Map<string, string>();
  for (const [k, v] of reads) {
    if (v.kind !== 'value') throw new Error(`${k} unreadable before any damage`);
    expected.set(k, v.text);
  }
  if (variant.stop === 'NOSAVE') {
    await r.call('SHUTDOWN', 'NOSAVE').catch(() => undefined);
    expect((await server.exited).code).toBe(0);
  } else {
    r.disconnect();
    await server.stop(variant.stop);
  }
  r.disconnect();
  const files = new Map<Target, string[]>();
  const db = join(dir, '0');
  const names = await readdir(db);
  files.set(
    'segment',
    names.filter((n) => /^log\.\d+$/.test(n)).map((n) => join('0', n)),
  );
  files.set(
    'checkpoint',
    names.filter((n) => n.startsWith('checkpoint.')).map((n) => join('0', n)),
  );
  const dataEnds = new Map<string, number>();
  if (variant.aof) {
    const aofFiles = (await readdir(join(dir, 'appendonlydir'))).map((n) =>
      join('appendonlydir', n),
    );
    files.set('aof', aofFiles);
    for (const f of aofFiles) {
      const bytes = await readFile(join(dir, f));
      let end = bytes.length;
      while (end > 0 && bytes[end - 1] === 0) end--;
      dataEnds.set(f, end);
    }
  }
  return {
    dir,
    args,
    expected,
    tail,
    streams,
    map: await mapLogKeys(db, PAGE, SEGMENT),
    files,
    dataEnds,
  };
}

/** Warning lines of a strata-server log (Redis's `#` level mark). */
function warningsIn(output: string): string[] {
  const mark = /^\d+:[MC] \d+ \w+ \d+ [\d:.]+ # /;
  return output
    .split('\n')
    .filter((l) => mark.test(l))
    .map((l) => l.replace(mark, ''));
}

/** Starts a copy of `dir`, reads every key, and kills it. */
async function restartAndRead(store: Store, dir: string): Promise<Outcome> {
  const p = StrataProcess.spawn(store.args(dir));
  let port: number;
  try {
    const m = await p.waitFor(/Ready to accept connections tcp on .*:(\d+)\n/, 90_000);
    port = Number(m[1]);
  } catch {
    await p.exited;
    const out = p.stdout + p.stderr;
    const fatal = out.split('\n').find((l) => /Fatal error during start-up|Refusing/.test(l));
    return { kind: 'refused', message: fatal ?? out.trim().split('\n').slice(-3).join(' | ') };
  }
  const r = client(port);
  try {
    await r.connect();
    const reads = await readKeys(r, [...store.expected.keys()]);
    let dbsizeError: string | null = null;
    await r.dbsize().catch((e: Error) => {
      dbsizeError = e.message;
    });
    await r.ping();
    const losses = p.stdout
      .split('\n')
      .filter((l) => /torn|cut|truncat|skipp|damage|lost|short read/i.test(l));
    return { kind: 'served', reads, warnings: warningsIn(p.stdout), losses, dbsizeError };
  } catch (e) {
    return { kind: 'died', output: `${(e as Error).message}\n${p.stdout}${p.stderr}` };
  } finally {
    r.disconnect();
    await p.stop('SIGKILL');
  }
}

/** The keys `damage` could have reached. */
function reachable(store: Store, target: Target, damage: Damage): Set<string> {
  if (target === 'checkpoint') return new Set(); // the log holds every record
  if (target === 'aof') return new Set(store.tail);
  const segment = Number(damage.path.split('.').at(-1));
  const ranges =
    damage.kind === 'delete' || damage.kind === 'truncate'
      ? [{ from: damage.from, to: SEGMENT }]
      : damagedRanges(damage);
  return keysHit(store.map, segment, ranges, store.streams);
}

/** What a hit key may read as besides its value: an older counter (a cut AOF tail replays a prefix). */
function isOlder(key: string, text: string): boolean {
  if (key !== 'counter') return false;
  const n = Number(JSON.parse(text));
  return Number.isInteger(n) && n >= 1 && n < COUNTER_INCRS;
}

/** A seed per test from its name, so each test's damages stay the same when others change. */
function seedOf(name: string): number {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  return h >>> 0;
}

const newTally = (): Tally => ({
  runs: 0,
  refused: 0,
  intact: 0,
  reported: 0,
  missing: 0,
  older: 0,
  wrong: 0,
  unsound: 0,
  unnamed: 0,
  died: 0,
});

function printTable(title: string, rows: Map<string, Tally>): void {
  const cols: (keyof Tally)[] = [
    'runs',
    'refused',
    'died',
    'intact',
    'reported',
    'missing',
    'older',
    'wrong',
    'unsound',
    'unnamed',
  ];
  const lines = [
    `${title} (seed ${SEED}, N ${N})`,
    ['damage'.padEnd(24), ...cols.map((c) => c.padStart(8))].join(''),
  ];
  for (const [name, t] of [...rows].sort()) {
    lines.push([name.padEnd(24), ...cols.map((c) => String(t[c]).padStart(8))].join(''));
  }
  console.log(lines.join('\n'));
}

describe.each(VARIANTS)('corruption campaign: $name', (variant) => {
  let store: Store;
  beforeAll(async () => {
    store = await buildStore(variant);
  }, 120_000);

  /** The control run: what an undamaged copy logs and serves. */
  let control: Outcome;
  beforeAll(async () => {
    const run = join(store.dir, '..', 'control');
    await cp(store.dir, run, { recursive: true });
    control = await restartAndRead(store, run);
    await rm(run, { recursive: true, force: true });
  }, 120_000);
  /** Warnings an undamaged copy logs too (kill -9 leaves a zero-filled AOF tail): they report no damage. */
  const usual = () => new Set(control.kind === 'served' ? control.warnings : []);

  test('control: an undamaged copy restarts with every key intact', () => {
    const outcome = control;
    expect(outcome.kind).toBe('served');
    if (outcome.kind !== 'served') return;
    const bad = [...store.expected].filter(([k, v]) => {
      const got = outcome.reads.get(k);
      return got?.kind !== 'value' || got.text !== v;
    });
    expect(bad.map(([k]) => k)).toEqual([]);
  }, 120_000);

  const targets: Target[] = (['segment', 'checkpoint', 'aof'] as const).filter(
    (t) => TARGETS.includes(t) && (t !== 'aof' || variant.aof),
  );
  test.each(targets)(
    `${N} seeded damages to %s files: 0 wrong values, every unreadable key reported, every undamaged key intact`,
    async (target) => {
      const random = new SeededRandom(SEED ^ seedOf(`${variant.name} ${target}`));
      const rows = new Map<string, Tally>();
      const failures: string[] = [];
      const files = store.files.get(target) ?? [];
      expect(files.length).toBeGreaterThan(0);
      for (let i = 0; i < N; i++) {
        const file = random.pick(files);
        const kind = random.pick(DAMAGE_KINDS);
        const run = join(store.dir, '..', `run-${target}-${i}`);
        await cp(store.dir, run, { recursive: true });
        const damage = await damageFile(join(run, file), kind, random, store.dataEnds.get(file));
        const what = `#${i} ${damage.kind} ${file} [${damage.from}, ${damage.to})`;
        const outcome = await restartAndRead(store, run);
        await rm(run, { recursive: true, force: true });
        const row = `${target} ${damage.kind}`;
        const t = rows.get(row) ?? newTally();
        rows.set(row, t);
        t.runs++;
        if (outcome.kind === 'refused') {
          t.refused++;
          console.log(`${what}: refused: ${outcome.message}`);
          if (!/Fatal error during start-up: .{20,}/.test(outcome.message)) {
            failures.push(`${what}: refused without a message: ${outcome.message}`);
          }
          continue;
        }
        if (outcome.kind === 'died') {
          t.died++;
          failures.push(`${what}: the server died while serving: ${outcome.output.slice(-500)}`);
          continue;
        }
        const hit = reachable(store, target, damage);
        const usualWarnings = usual();
        const damageWarnings = outcome.warnings.filter((w) => !usualWarnings.has(w));
        const counts = {
          intact: 0,
          reported: 0,
          missing: 0,
          older: 0,
          wrong: 0,
          unsound: 0,
          unnamed: 0,
        };
        const samples: string[] = [];
        /** Keys gone (or older) with no warning about the damage in the log. */
        const silent: string[] = [];
        for (const [key, want] of store.expected) {
          const got = outcome.reads.get(key)!;
          let cls: keyof typeof counts;
          if (got.kind === 'error') cls = 'reported';
          else if (got.kind === 'missing') cls = 'missing';
          else if (got.text === want) cls = 'intact';
          else if (hit.has(key) && isOlder(key, got.text)) cls = 'older';
          else cls = 'wrong';
          counts[cls]++;
          if (got.kind === 'error' && !got.message.includes(key)) counts.unnamed++;
          if (cls === 'wrong')
            failures.push(
              `${what}: WRONG value for ${key}: ${got.kind === 'value' ? got.text.slice(0, 80) : ''}`,
            );
          if (cls !== 'intact' && !hit.has(key)) {
            counts.unsound++;
            if (samples.length < 3)
              samples.push(`${key} ${cls}${got.kind === 'error' ? ` (${got.message})` : ''}`);
          }
          if ((cls === 'missing' || cls === 'older') && damageWarnings.length === 0)
            silent.push(key);
        }
        for (const c of Object.keys(counts) as (keyof typeof counts)[]) t[c] += counts[c];
        if (silent.length > 0) {
          failures.push(
            `${what}: ${silent.length} keys gone or older and no warning about the damage ` +
              `(${silent.slice(0, 3).join(', ')}...); other lines: ${outcome.losses.join(' | ') || 'none'}`,
          );
        }
        if (counts.unsound > 0) {
          failures.push(
            `${what}: ${counts.unsound} keys out of the damage's reach not intact (${samples.join('; ')})`,
          );
        }
        console.log(
          `${what}: served; ${hit.size} keys within reach; intact ${counts.intact}, reported ${counts.reported}, ` +
            `missing ${counts.missing}, older ${counts.older}, wrong ${counts.wrong}` +
            (outcome.dbsizeError !== null ? `; DBSIZE: ${outcome.dbsizeError}` : '') +
            (damageWarnings.length > 0
              ? `; log: ${damageWarnings
                  .slice(0, 2)
                  .map((w) => w.slice(0, 170))
                  .join(' | ')}`
              : ''),
        );
      }
      printTable(`corruption campaign, ${variant.name}, ${target} files`, rows);
      expect(failures, `seed ${SEED} (STRATA_CAMPAIGN_SEED replays it)`).toEqual([]);
    },
    600_000,
  );
});
