import { eqi } from '../../args.js';
import { CommandError } from '../../errors.js';
import { parseDouble, parseScore } from '../zsets/zsets-args.js';
import { formatFixed } from './geo-format.js';
import { GEO_LAT_MAX, GEO_LAT_MIN, GEO_LONG_MAX, GEO_LONG_MIN } from './geohash.js';

/**
 * The geo commands' arguments and their errors, worded as Redis 7.0's
 * src/geo.c: coordinates (extractLongLatOrReply), units
 * (extractUnitOrReply), a radius (extractDistanceOrReply) and a box
 * (extractBoxOrReply).
 */

type GeoErrorCode = 'ERR_SYNTAX' | 'ERR_OUT_OF_RANGE' | 'ERR_NOT_FLOAT';

const err = (code: GeoErrorCode, text: string): CommandError =>
  new CommandError(code, `ERR ${text}`);

/** A longitude and latitude at argv[at], argv[at + 1], in the WGS84 limits. */
export function parseLonLat(argv: readonly Buffer[], at: number): [lon: number, lat: number] {
  const lon = parseScore(argv[at]!);
  const lat = parseScore(argv[at + 1]!);
  if (lon < GEO_LONG_MIN || lon > GEO_LONG_MAX || lat < GEO_LAT_MIN || lat > GEO_LAT_MAX) {
    throw err(
      'ERR_OUT_OF_RANGE',
      `invalid longitude,latitude pair ${formatFixed(lon, 6)},${formatFixed(lat, 6)}`,
    );
  }
  return [lon, lat];
}

/** A unit's length in meters. */
export function parseUnit(arg: Buffer): number {
  if (eqi(arg, 'm')) return 1;
  if (eqi(arg, 'km')) return 1000;
  if (eqi(arg, 'ft')) return 0.3048;
  if (eqi(arg, 'mi')) return 1609.34;
  throw err('ERR_SYNTAX', 'unsupported unit provided. please use M, KM, FT, MI');
}

/** getDoubleFromObjectOrReply with Redis's own message. */
function numeric(arg: Buffer, message: string): number {
  const v = parseDouble(arg);
  if (Number.isNaN(v)) throw err('ERR_NOT_FLOAT', message);
  return v;
}

/** A radius and its unit at argv[at], argv[at + 1]. */
export function parseRadius(argv: readonly Buffer[], at: number): [radius: number, unit: number] {
  const radius = numeric(argv[at]!, 'need numeric radius');
  if (radius < 0) throw err('ERR_OUT_OF_RANGE', 'radius cannot be negative');
  return [radius, parseUnit(argv[at + 1]!)];
}

/** A box's width, height and unit from argv[at]. */
export function parseBox(
  argv: readonly Buffer[],
  at: number,
): [width: number, height: number, unit: number] {
  const width = numeric(argv[at]!, 'need numeric width');
  const height = numeric(argv[at + 1]!, 'need numeric height');
  if (height < 0 || width < 0) throw err('ERR_OUT_OF_RANGE', 'height or width cannot be negative');
  return [width, height, parseUnit(argv[at + 2]!)];
}

/** An argument error of the search commands: `ERR <text>`. */
export const syntaxText = (text: string): CommandError => err('ERR_SYNTAX', text);

export const notDecodedError = (): CommandError =>
  err('ERR_SYNTAX', 'could not decode requested zset member');
