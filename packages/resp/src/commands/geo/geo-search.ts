import { Before, SortedSet } from '@strata/collections';
import { eqi, parseInteger } from '../../args.js';
import { syntaxError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { signalKey } from '../blocking/blocking-registry.js';
import { keyMiss } from '../pubsub/keyspace-events.js';
import { whenWritten } from '../shared/collection-access.js';
import { withZset } from '../zsets/zsets.js';
import { member } from '../zsets/zsets-args.js';
import { storeEvents } from '../zsets/zsets-notify.js';
import { notDecodedError, parseBox, parseLonLat, parseRadius, syntaxText } from './geo-args.js';
import { replyCoordinate, replyDistance } from './geo-basic.js';
import { distanceIfInShape, type GeoShape, searchCells } from './geo-shape.js';
import { align52, type GeoHashBits, pointInto, pointOf } from './geohash.js';

/** The candidate a scan is looking at: [lon, lat]. */
const POINT: [number, number] = [0, 0];

/**
 * Redis 7.0's georadiusGeneric: GEOSEARCH, GEOSEARCHSTORE, GEORADIUS,
 * GEORADIUSBYMEMBER and their _RO forms. The source is looked up first
 * (WRONGTYPE and the key miss come before any argument error), the options
 * are read in Redis's order with its errors, the 9 cells of the shape are
 * scanned by score range in Redis's order, and the points are sorted by
 * distance (stably, as glibc's qsort) when asked to or when COUNT is given
 * without ANY.
 */

/** Which command runs the search: where its source and center are, what it may store. */
export type SearchKind =
  | 'georadius'
  | 'georadius_ro'
  | 'georadiusbymember'
  | 'georadiusbymember_ro'
  | 'geosearch'
  | 'geosearchstore';

/** A point found in the shape. */
interface GeoPoint {
  readonly member: string;
  readonly score: number;
  readonly lon: number;
  readonly lat: number;
  /** Meters while searching, the request's unit once replied or stored. */
  dist: number;
}

type Sort = 'none' | 'asc' | 'desc';

/** The center and size of the shape as the options give them (the center may come later). */
interface ShapeParts {
  lon: number;
  lat: number;
  type: 'radius' | 'box' | null;
  radius: number;
  width: number;
  height: number;
  conversion: number;
}

function decodeMember(z: SortedSet, arg: Buffer): [number, number] {
  const s = z.score(member(arg));
  if (s === undefined) throw notDecodedError();
  return pointOf(s);
}

export function geoSearch(c: Client, argv: Buffer[], kind: SearchKind): CommandResult {
  const store = kind === 'geosearchstore';
  const src = argv[store ? 2 : 1]!;
  return withZset(c, src, (z) => {
    if (z === null) keyMiss(c, src);
    return searchIn(c, argv, kind, z);
  });
}

function searchIn(c: Client, argv: Buffer[], kind: SearchKind, z: SortedSet | null): CommandResult {
  const isSearch = kind === 'geosearch' || kind === 'geosearchstore';
  const noStore = kind === 'georadius_ro' || kind === 'georadiusbymember_ro';
  const parts: ShapeParts = {
    lon: 0,
    lat: 0,
    type: null,
    radius: 0,
    width: 0,
    height: 0,
    conversion: 1,
  };
  let storeKey: Buffer | null = null;
  let storeDist = false;
  let baseArgs: number;
  if (kind === 'georadius' || kind === 'georadius_ro') {
    baseArgs = 6;
    [parts.lon, parts.lat] = parseLonLat(argv, 2);
    [parts.radius, parts.conversion] = parseRadius(argv, 4);
    parts.type = 'radius';
  } else if (!isSearch) {
    baseArgs = 5;
    // No source: the options are still read, for the reply STORE decides.
    if (z !== null) {
      [parts.lon, parts.lat] = decodeMember(z, argv[2]!);
      [parts.radius, parts.conversion] = parseRadius(argv, 3);
      parts.type = 'radius';
    }
  } else {
    baseArgs = kind === 'geosearchstore' ? 3 : 2;
    if (kind === 'geosearchstore') storeKey = argv[1]!;
  }

  let withDist = false;
  let withHash = false;
  let withCoords = false;
  let fromMember = false;
  let fromLoc = false;
  let byRadius = false;
  let byBox = false;
  let sort: Sort = 'none';
  let any = false;
  let count = 0;
  const remaining = argv.length - baseArgs;
  for (let i = 0; i < remaining; i++) {
    const at = baseArgs + i;
    const a = argv[at]!;
    if (eqi(a, 'withdist')) withDist = true;
    else if (eqi(a, 'withhash')) withHash = true;
    else if (eqi(a, 'withcoord')) withCoords = true;
    else if (eqi(a, 'any')) any = true;
    else if (eqi(a, 'asc')) sort = 'asc';
    else if (eqi(a, 'desc')) sort = 'desc';
    else if (eqi(a, 'count') && i + 1 < remaining) {
      count = parseInteger(argv[at + 1]!);
      if (count <= 0) throw syntaxText('COUNT must be > 0');
      i++;
    } else if (eqi(a, 'store') && i + 1 < remaining && !noStore && !isSearch) {
      storeKey = argv[at + 1]!;
      storeDist = false;
      i++;
    } else if (eqi(a, 'storedist') && i + 1 < remaining && !noStore && !isSearch) {
      storeKey = argv[at + 1]!;
      storeDist = true;
      i++;
    } else if (eqi(a, 'storedist') && kind === 'geosearchstore') {
      storeDist = true;
    } else if (eqi(a, 'frommember') && i + 1 < remaining && isSearch && !fromLoc) {
      if (z !== null) [parts.lon, parts.lat] = decodeMember(z, argv[at + 1]!);
      fromMember = true;
      i++;
    } else if (eqi(a, 'fromlonlat') && i + 2 < remaining && isSearch && !fromMember) {
      [parts.lon, parts.lat] = parseLonLat(argv, at + 1);
      fromLoc = true;
      i += 2;
    } else if (eqi(a, 'byradius') && i + 2 < remaining && isSearch && !byBox) {
      [parts.radius, parts.conversion] = parseRadius(argv, at + 1);
      parts.type = 'radius';
      byRadius = true;
      i += 2;
    } else if (eqi(a, 'bybox') && i + 3 < remaining && isSearch && !byRadius) {
      [parts.width, parts.height, parts.conversion] = parseBox(argv, at + 1);
      parts.type = 'box';
      byBox = true;
      i += 3;
    } else throw syntaxError();
  }

  const name = argv[0]!.toString('latin1');
  if (storeKey !== null && (withDist || withHash || withCoords)) {
    throw syntaxText(
      `${kind === 'geosearchstore' ? 'GEOSEARCHSTORE' : 'STORE option in GEORADIUS'} is not compatible with WITHDIST, WITHHASH and WITHCOORD options`,
    );
  }
  if (isSearch && !(fromMember || fromLoc)) {
    throw syntaxText(`exactly one of FROMMEMBER or FROMLONLAT can be specified for ${name}`);
  }
  if (isSearch && !(byRadius || byBox)) {
    throw syntaxText(`exactly one of BYRADIUS and BYBOX can be specified for ${name}`);
  }
  if (any && count === 0) throw syntaxText('the ANY argument requires COUNT argument');

  if (z === null) {
    if (storeKey !== null) return storeResult(c, argv, storeKey, null, 0, kind);
    c.reply.array(0);
    return undefined;
  }
  // COUNT alone means the nearest ones: sorted ascending (not with ANY).
  if (count !== 0 && sort === 'none' && !any) sort = 'asc';

  const shape: GeoShape =
    parts.type === 'box'
      ? {
          type: 'box',
          lon: parts.lon,
          lat: parts.lat,
          width: parts.width,
          height: parts.height,
          conversion: parts.conversion,
          exact: storeDist,
        }
      : {
          type: 'radius',
          lon: parts.lon,
          lat: parts.lat,
          radius: parts.radius,
          conversion: parts.conversion,
          exact: storeDist,
        };
  const points = scanCells(z, shape, any ? count : 0);
  if (points.length === 0 && storeKey === null) {
    c.reply.array(0);
    return undefined;
  }
  const returned = count === 0 || points.length < count ? points.length : count;
  if (sort === 'asc') points.sort((p, q) => compareDist(p, q));
  else if (sort === 'desc') points.sort((p, q) => compareDist(q, p));

  if (storeKey === null) {
    const options = (withDist ? 1 : 0) + (withCoords ? 1 : 0) + (withHash ? 1 : 0);
    c.reply.array(returned);
    for (let i = 0; i < returned; i++) {
      const p = points[i]!;
      if (options > 0) c.reply.array(options + 1);
      c.reply.bulkLatin1(p.member);
      if (withDist) replyDistance(c, p.dist / shape.conversion);
      if (withHash) c.reply.integer(Math.trunc(p.score));
      if (withCoords) {
        c.reply.array(2);
        replyCoordinate(c, p.lon);
        replyCoordinate(c, p.lat);
      }
    }
    return undefined;
  }
  let stored: SortedSet | null = null;
  if (returned > 0) {
    stored = new SortedSet();
    for (let i = 0; i < returned; i++) {
      const p = points[i]!;
      stored.add(p.member, storeDist ? p.dist / shape.conversion : p.score);
    }
  }
  return storeResult(c, argv, storeKey, stored, returned, kind);
}

const compareDist = (p: GeoPoint, q: GeoPoint): number =>
  p.dist > q.dist ? 1 : p.dist === q.dist ? 0 : -1;

/** The destination of a STORE: the found points, or deleted when none; the reply is their count. */
function storeResult(
  c: Client,
  argv: Buffer[],
  dst: Buffer,
  stored: SortedSet | null,
  count: number,
  kind: SearchKind,
): CommandResult {
  const event = kind === 'geosearchstore' ? 'geosearchstore' : 'georadiusstore';
  return storeEvents(c, dst, stored, event, (w) => {
    if (stored !== null) signalKey(c, dst, argv);
    return whenWritten(w, () => c.reply.integer(count));
  });
}

/**
 * membersOfAllNeighbors: every cell's score range in order, a cell the
 * same as the last one scanned skipped (large radii make neighbours
 * repeat), stopping once `limit` points (ANY's COUNT; 0: none) are found.
 */
function scanCells(z: SortedSet, shape: GeoShape, limit: number): GeoPoint[] {
  const cells = searchCells(shape);
  const points: GeoPoint[] = [];
  let last = 0;
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i]!;
    if (cell.bits === 0 && cell.step === 0) continue;
    const prev = cells[last]!;
    if (last !== 0 && cell.bits === prev.bits && cell.step === prev.step) continue;
    if (points.length > 0 && limit > 0 && points.length >= limit) break;
    scanCell(z, cell, shape, points, limit);
    last = i;
  }
  return points;
}

/** geoGetPointsInRange: the members with min <= score < max of the cell that are in the shape. */
function scanCell(
  z: SortedSet,
  cell: GeoHashBits,
  shape: GeoShape,
  points: GeoPoint[],
  limit: number,
): void {
  const min = align52(cell);
  const max = align52({ bits: cell.bits + 1, step: cell.step });
  const from = z.countBefore(Before.SCORE_LT, min);
  const to = z.countBefore(Before.SCORE_LT, max);
  if (to <= from) return;
  const cur = z.at(from);
  for (let r = from; r < to; r++, cur.next()) {
    const score = cur.score;
    pointInto(score, POINT);
    const dist = distanceIfInShape(shape, POINT[0], POINT[1]);
    if (dist >= 0) points.push({ member: cur.member, score, lon: POINT[0], lat: POINT[1], dist });
    if (points.length > 0 && limit > 0 && points.length >= limit) break;
  }
}
