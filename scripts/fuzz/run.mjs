#!/usr/bin/env node
// The full hostile-input fuzz run: `node scripts/fuzz/run.mjs --frames 1000000`.
// Bundles the harness (packages/resp/test/hostile) from source with tsup, runs
// it against an in-process RespServer (and, with --redis, the same kind of
// input against redis-server 7 to check the expectations), prints a report
// and exits 1 on any failure. A failing session prints its seed; the run is
// reproduced with the same --seed.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    frames: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: String(Date.now() % 2 ** 31) },
    connections: { type: 'string', default: '64' },
    redis: { type: 'boolean', default: false },
    'redis-frames': { type: 'string', default: '200000' },
    json: { type: 'boolean', default: false },
    sessions: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(`usage: node scripts/fuzz/run.mjs [--frames N] [--seed S] [--connections C] [--redis [--redis-frames N]] [--json]
  --frames       frames to send to an in-process RespServer (default 1000000)
  --seed         seed of the run (default: from the clock; printed)
  --connections  fuzz connections at once (default 64)
  --redis        also send --redis-frames frames to a redis-server 7 started here
  --json         print the whole report as JSON
  --sessions     replay these session seeds (comma separated, from a report), one connection`);
  process.exit(0);
}
const frames = Number(values.frames);
const seed = Number(values.seed);
const connections = Number(values.connections);

const out = await mkdtemp(join(tmpdir(), 'strata-fuzz-build-'));
const { build } = await import('tsup');
await build({
  entry: { 'fuzz-run': join(root, 'packages/resp/test/hostile/fuzz-run.ts') },
  outDir: out,
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  bundle: true,
  splitting: false,
  noExternal: [/.*/],
  dts: false,
  config: false,
  silent: true,
  esbuildOptions(o) {
    o.conditions = ['@strata/source'];
  },
});
const { runFuzz } = await import(pathToFileURL(join(out, 'fuzz-run.js')).href);

const MB = 1 << 20;
const mb = (n) => `${(n / MB).toFixed(1)} MB`;
function print(r) {
  if (values.json) {
    console.log(JSON.stringify(r, null, 2));
    return;
  }
  console.log(`target: ${r.target}, seed ${r.seed}`);
  console.log(
    `frames ${r.frames} (${mb(r.bytes)}) in ${r.seconds.toFixed(1)} s = ${Math.round(r.frames / r.seconds)} frames/s; ` +
      `${r.sessions} connections, ${r.commands} commands answered`,
  );
  console.log(`frame kinds: ${JSON.stringify(r.kinds)}`);
  const endings = {};
  for (const [k, n] of Object.entries(r.endings)) {
    const key = k.replace(/got '.*'$/s, "got '<byte>'");
    endings[key] = (endings[key] ?? 0) + n;
  }
  console.log(`endings (${Object.keys(r.endings).length} distinct): ${JSON.stringify(endings)}`);
  console.log(
    `never-reading clients: ${r.stalled.sessions}, disconnected ${r.stalled.disconnected}; resets ${r.resets}`,
  );
  console.log(
    `PING: ${r.ping.count}, p99 ${r.ping.p99Ms.toFixed(1)} ms, max ${r.ping.maxMs.toFixed(1)} ms`,
  );
  console.log(`control SET/GET: ${r.control.ops} ops, ${r.control.mismatches} mismatches`);
  if (r.memory !== null) {
    const m = r.memory;
    console.log(
      `memory: rss baseline ${mb(m.baseline.rss)}, peak ${mb(m.peak.rss)}, final ${mb(m.final.rss)}; ` +
        `heap+external baseline ${mb(m.baseline.heapUsed + m.baseline.external)}, ` +
        `peak heap ${mb(m.peak.heapUsed)} / external ${mb(m.peak.external)}, final ${mb(m.final.heapUsed + m.final.external)}`,
    );
    console.log(`clients left after the run: ${r.clientsLeft}`);
  }
  console.log(`uncaught exceptions: ${r.uncaught.length}; failures: ${r.failures.length}`);
  for (const f of [...r.uncaught, ...r.failures]) console.log(`  ${f}`);
}

let failed = false;
const progress = (p) =>
  process.stderr.write(
    `  ${p.frames} frames, ${p.sessions} connections, ${p.seconds.toFixed(0)} s\n`,
  );
const replay = values.sessions?.split(',').map(Number);
const r = await runFuzz({
  frames,
  seed,
  connections: replay === undefined ? connections : 1,
  onProgress: progress,
  ...(replay === undefined ? {} : { sessions: replay }),
});
print(r);
failed ||= r.failures.length > 0 || r.uncaught.length > 0;

if (values.redis) {
  if (spawnSync('redis-server', ['--version']).status !== 0) {
    console.log('redis-server is not installed: no reference run');
  } else {
    const port = await freePort();
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--proto-max-bulk-len',
        String(4 * MB),
        '--client-output-buffer-limit',
        `normal ${16 * MB} 0 0`,
        '--maxclients',
        String(connections * 2 + 16),
        '--dir',
        out,
      ],
      { stdio: 'ignore' },
    );
    try {
      await waitListening(port);
      const rr = await runFuzz({
        frames: Number(values['redis-frames']),
        seed: seed + 1,
        connections,
        target: { port, name: 'redis-server' },
        onProgress: progress,
      });
      print(rr);
      failed ||= rr.failures.length > 0;
    } finally {
      child.kill();
    }
  }
}
await rm(out, { recursive: true, force: true });
process.exit(failed ? 1 : 0);

function freePort() {
  return new Promise((ok, ko) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
    s.once('error', ko);
  });
}

async function waitListening(port) {
  for (let i = 0; i < 100; i++) {
    const up = await new Promise((ok) => {
      const s = connect(port, '127.0.0.1', () => {
        s.destroy();
        ok(true);
      });
      s.once('error', () => ok(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not listen on ${port}`);
}
