import { Prng } from '@strata/io';
import { type ProtocolError, RequestParser } from '@strata/protocol';
import { FrameGenerator, type FrameGeneratorOptions, type FrameKind } from './frame-generator.js';

/**
 * One fuzz connection's input, made from a seed, with what Redis does with
 * it: how many commands it runs (one reply each), and whether it ends in a
 * protocol error (reply, then close), between two requests, or inside one.
 * The expectation comes from feeding the same bytes to a RequestParser;
 * run against redis-server, the harness checks the parser itself.
 */
export interface Session {
  readonly seed: number;
  readonly bytes: Buffer;
  /** Frames in `bytes`, per kind. */
  readonly kinds: ReadonlyMap<FrameKind, number>;
  readonly frames: number;
  /** Commands before the end of the input or the protocol error. */
  readonly commands: number;
  /** Their names (the first 24 bytes), for failure reports. */
  readonly names: readonly string[];
  readonly error: ProtocolError | null;
  /** The input ends between two requests. */
  readonly idle: boolean;
  /** Sizes of the socket writes the bytes are sent in. */
  readonly chunks: readonly number[];
}

export interface SessionOptions extends FrameGeneratorOptions {
  /** Most frames in one session (a protocol error ends it sooner). */
  readonly maxFrames: number;
}

/**
 * Commands a fuzz connection must never run: they close it, touch other
 * connections or the whole server, or make replies not one per command.
 */
const DENIED = new Set([
  'quit',
  'shutdown',
  'flushall',
  'flushdb',
  'swapdb',
  'save',
  'bgsave',
  'move',
  'keys',
  'randomkey',
  'info',
  'debug',
  'monitor',
  'subscribe',
  'psubscribe',
  'ssubscribe',
  'sync',
  'psync',
  'replicaof',
  'slaveof',
]);
const DENIED_SUB: Record<string, Set<string>> = {
  config: new Set(['set', 'resetstat', 'rewrite']),
  client: new Set(['kill', 'reply', 'pause', 'no-evict', 'list']),
};

function denied(argv: Buffer[]): boolean {
  const name = argv[0]!.toString('latin1').toLowerCase();
  if (DENIED.has(name)) return true;
  const subs = DENIED_SUB[name];
  return (
    subs !== undefined && argv.length > 1 && subs.has(argv[1]!.toString('latin1').toLowerCase())
  );
}

export function buildSession(seed: number, options: SessionOptions): Session {
  for (let attempt = 0; ; attempt++) {
    const s = tryBuild((seed + attempt * 0x9e3779b9) >>> 0, options);
    if (s !== null) return s;
  }
}

function tryBuild(seed: number, options: SessionOptions): Session | null {
  const prng = new Prng(seed);
  const generator = new FrameGenerator(prng, options);
  const oracle = new RequestParser({ maxBulkLength: options.maxBulkLength });
  const target = 1 + Math.floor(Math.exp(prng.next() * Math.log(options.maxFrames)));
  const parts: Buffer[] = [];
  const kinds = new Map<FrameKind, number>();
  let commands = 0;
  const names: string[] = [];
  let error: ProtocolError | null = null;
  let frames = 0;
  while (frames < target && error === null) {
    const frame = generator.next();
    parts.push(frame.bytes);
    kinds.set(frame.kind, (kinds.get(frame.kind) ?? 0) + 1);
    frames++;
    oracle.feed(frame.bytes);
    for (;;) {
      const r = oracle.next();
      if (r.kind === 'need-more') break;
      if (r.kind === 'error') {
        error = r;
        break;
      }
      if (denied(r.argv)) return null;
      names.push(r.argv[0]!.toString('latin1', 0, 24));
      commands++;
    }
  }
  const bytes = Buffer.concat(parts);
  return {
    seed,
    bytes,
    kinds,
    frames,
    commands,
    names,
    error,
    idle: error === null && oracle.idle,
    chunks: splitPoints(prng, bytes.length),
  };
}

/** Write sizes: byte by byte, small pieces, or big slabs, mixed. */
function splitPoints(prng: Prng, length: number): number[] {
  const chunks: number[] = [];
  let left = length;
  while (left > 0) {
    const r = prng.next();
    const max = r < 0.15 ? 8 : r < 0.55 ? 512 : 65536;
    const n = Math.min(left, 1 + prng.nextInt(max));
    chunks.push(n);
    left -= n;
  }
  return chunks;
}
