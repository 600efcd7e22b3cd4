import { eqi } from '../../args.js';
import { syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandHandler, CommandResult } from '../../server/command-table.js';
import { keyMiss } from '../pubsub/keyspace-events.js';
import { withZset, zsetCommands } from '../zsets/zsets.js';
import { member } from '../zsets/zsets-args.js';
import { parseLonLat, parseUnit } from './geo-args.js';
import { formatFixed, formatHuman } from './geo-format.js';
import { distance } from './geo-shape.js';
import { encode, GEO_STEP_MAX, pointOf, STANDARD_LAT, STANDARD_LONG, scoreOf } from './geohash.js';

/**
 * GEOADD, GEOPOS, GEODIST and GEOHASH as Redis 7.0's src/geo.c: a geo key
 * is a sorted set whose scores are 52-bit geohashes, so GEOADD is a ZADD
 * of the encoded scores (the same code, events and blocked-client wakeups).
 */

const zaddHandler: CommandHandler = (() => {
  const h = zsetCommands.find((d) => d.name === 'zadd')?.handler;
  if (h === undefined) throw new Error('the zsets family has no ZADD');
  return h;
})();

const ZADD = Buffer.from('zadd');

/** GEOADD key [NX|XX] [CH] lon lat member...: ZADD with the members' geohashes. */
export function geoadd(c: Client, argv: Buffer[]): CommandResult {
  let xx = false;
  let nx = false;
  let at = 2;
  for (; at < argv.length; at++) {
    const a = argv[at]!;
    if (eqi(a, 'nx')) nx = true;
    else if (eqi(a, 'xx')) xx = true;
    else if (!eqi(a, 'ch')) break;
  }
  if ((argv.length - at) % 3 !== 0 || (xx && nx)) throw syntaxError();
  const elements = (argv.length - at) / 3;
  const zargv: Buffer[] = [ZADD];
  for (let i = 1; i < at; i++) zargv.push(argv[i]!);
  for (let i = 0; i < elements; i++) {
    const [lon, lat] = parseLonLat(argv, at + i * 3);
    zargv.push(Buffer.from(String(scoreOf(lon, lat))), argv[at + i * 3 + 2]!);
  }
  return zaddHandler(c, zargv);
}

/** A coordinate as addReplyHumanLongDouble writes it: a bulk string in RESP2, a double in RESP3. */
export function replyCoordinate(c: Client, x: number): void {
  const text = formatHuman(x);
  if (c.protocol === 3) c.reply.raw(Buffer.from(`,${text}\r\n`, 'latin1'));
  else c.reply.bulk(text);
}

/** addReplyDoubleDistance: `%.4f` as a bulk string (both protocols). */
export function replyDistance(c: Client, meters: number): void {
  c.reply.bulk(formatFixed(meters, 4));
}

export function geopos(c: Client, argv: Buffer[]): CommandResult {
  return withZset(c, argv[1]!, (z) => {
    if (z === null) keyMiss(c, argv[1]!);
    c.reply.array(argv.length - 2);
    for (let i = 2; i < argv.length; i++) {
      const score = z?.score(member(argv[i]!));
      if (score === undefined) {
        c.reply.nullArray();
        continue;
      }
      const [lon, lat] = pointOf(score);
      c.reply.array(2);
      replyCoordinate(c, lon);
      replyCoordinate(c, lat);
    }
    return undefined;
  });
}

export function geodist(c: Client, argv: Buffer[]): CommandResult {
  let toMeter = 1;
  if (argv.length === 5) toMeter = parseUnit(argv[4]!);
  else if (argv.length > 5) throw syntaxError();
  return withZset(c, argv[1]!, (z) => {
    if (z === null) {
      keyMiss(c, argv[1]!);
      c.reply.null();
      return undefined;
    }
    const s1 = z.score(member(argv[2]!));
    const s2 = s1 === undefined ? undefined : z.score(member(argv[3]!));
    if (s1 === undefined || s2 === undefined) {
      c.reply.null();
      return undefined;
    }
    const [lon1, lat1] = pointOf(s1);
    const [lon2, lat2] = pointOf(s2);
    replyDistance(c, distance(lon1, lat1, lon2, lat2) / toMeter);
    return undefined;
  });
}

const ALPHABET = '0123456789bcdefghjkmnpqrstuvwxyz';

/**
 * The standard 11-character geohash of a score: decoded, re-encoded with
 * the standard ranges (latitude -90..90, not the -85..85 the scores use),
 * 10 characters of 5 bits and an 11th that is always `0` (52 bits only).
 */
export function geohashString(score: number): string {
  const [lon, lat] = pointOf(score);
  const h = encode(STANDARD_LONG, STANDARD_LAT, lon, lat, GEO_STEP_MAX);
  const bits = h === null ? 0 : h.bits;
  let s = '';
  for (let i = 0; i < 11; i++) {
    // 5 bits at a time from bit 51 down: a division, the bits above 2^32.
    const idx = i === 10 ? 0 : Math.floor(bits / 2 ** (52 - (i + 1) * 5)) % 32;
    s += ALPHABET[idx];
  }
  return s;
}

export function geohash(c: Client, argv: Buffer[]): CommandResult {
  return withZset(c, argv[1]!, (z) => {
    if (z === null) keyMiss(c, argv[1]!);
    c.reply.array(argv.length - 2);
    for (let i = 2; i < argv.length; i++) {
      const score = z?.score(member(argv[i]!));
      if (score === undefined) c.reply.null();
      else c.reply.bulk(geohashString(score));
    }
    return undefined;
  });
}
