import {
  decode,
  encode,
  type GeoHashArea,
  type GeoHashBits,
  NO_HASH,
  neighbors,
  WGS84_LAT,
  WGS84_LONG,
} from './geohash.js';
import * as exactTrig from './libm.js';

/**
 * Redis's src/geohash_helper.c as 7.0 has it: the shape of a search, the
 * haversine distances, the step that covers a radius and the 9 cells a
 * search scans (the centre cell and its 8 neighbours, the useless ones left
 * out).
 */

/** A search's shape: its centre, its size in the request's unit, and that unit in meters. */
export type GeoShape =
  | {
      readonly type: 'radius';
      readonly lon: number;
      readonly lat: number;
      readonly radius: number;
      readonly conversion: number;
      /** Distances in glibc's rounding (libm.ts): they are stored at full precision. */
      readonly exact: boolean;
    }
  | {
      readonly type: 'box';
      readonly lon: number;
      readonly lat: number;
      readonly width: number;
      readonly height: number;
      readonly conversion: number;
      readonly exact: boolean;
    };

const D_R = Math.PI / 180.0;
export const EARTH_RADIUS_IN_METERS = 6372797.560856;
const MERCATOR_MAX = 20037726.37;

const degRad = (ang: number): number => ang * D_R;
const radDeg = (ang: number): number => ang / D_R;

/** geohashGetLatDistance: along a meridian, asin(sin(x)) is x. */
function latDistance(lat1d: number, lat2d: number): number {
  return EARTH_RADIUS_IN_METERS * Math.abs(degRad(lat2d) - degRad(lat1d));
}

/** The trigonometry a distance is computed with. */
interface Trig {
  sin(x: number): number;
  cos(x: number): number;
  asin(x: number): number;
}

/** V8's own: fast, and within an ulp of glibc's. */
const FAST: Trig = Math;
/** Rounded to the nearest double, as glibc rounds nearly every value (slower: for stored distances). */
const EXACT: Trig = exactTrig;

/** geohashGetDistance: the haversine great-circle distance in meters. */
export function distance(
  lon1d: number,
  lat1d: number,
  lon2d: number,
  lat2d: number,
  exact = false,
): number {
  const m = exact ? EXACT : FAST;
  const v = m.sin((degRad(lon2d) - degRad(lon1d)) / 2);
  // Redis takes the cheaper path when the longitudes are the same; so must we, for the same bits.
  if (v === 0) return latDistance(lat1d, lat2d);
  const lat1r = degRad(lat1d);
  const lat2r = degRad(lat2d);
  const u = m.sin((lat2r - lat1r) / 2);
  const a = u * u + m.cos(lat1r) * m.cos(lat2r) * v * v;
  return 2.0 * EARTH_RADIUS_IN_METERS * m.asin(Math.sqrt(a));
}

/**
 * Whether the point (x2, y2) is in the shape: its distance from the centre
 * in meters when it is, else -1 (geohashGetDistanceIfInRadiusWGS84 /
 * geohashGetDistanceIfInRectangle, the latitude checked first). The test
 * uses V8's trigonometry (a point within an ulp of the edge is the only
 * one it can judge otherwise than glibc); a shape whose distances are
 * stored gets the kept points' distances again in glibc's rounding.
 */
export function distanceIfInShape(s: GeoShape, x2: number, y2: number): number {
  if (s.type === 'radius') {
    const d = distance(s.lon, s.lat, x2, y2);
    if (d > s.radius * s.conversion) return -1;
    return s.exact ? distance(s.lon, s.lat, x2, y2, true) : d;
  }
  if (latDistance(y2, s.lat) > (s.height * s.conversion) / 2) return -1;
  if (distance(x2, y2, s.lon, y2) > (s.width * s.conversion) / 2) return -1;
  return distance(s.lon, s.lat, x2, y2, s.exact);
}

/** geohashEstimateStepsByRadius: the step whose cells cover the radius. */
export function estimateStepsByRadius(rangeMeters: number, lat: number): number {
  if (rangeMeters === 0) return 26;
  let range = rangeMeters;
  let step = 1;
  while (range < MERCATOR_MAX) {
    range *= 2;
    step++;
  }
  step -= 2; // Make sure range is included in most of the base cases.
  // Wider range towards the poles.
  if (lat > 66 || lat < -66) {
    step--;
    if (lat > 80 || lat < -80) step--;
  }
  if (step < 1) step = 1;
  if (step > 26) step = 26;
  return step;
}

/** geohashBoundingBox: [minLon, minLat, maxLon, maxLat] of the shape. */
export function boundingBox(s: GeoShape): [number, number, number, number] {
  const { lon, lat } = s;
  const height = s.conversion * (s.type === 'radius' ? s.radius : s.height / 2);
  const width = s.conversion * (s.type === 'radius' ? s.radius : s.width / 2);
  const latDelta = radDeg(height / EARTH_RADIUS_IN_METERS);
  const longDeltaTop = radDeg(width / EARTH_RADIUS_IN_METERS / Math.cos(degRad(lat + latDelta)));
  const longDeltaBottom = radDeg(width / EARTH_RADIUS_IN_METERS / Math.cos(degRad(lat - latDelta)));
  // The hemispheres bend the box's edges opposite ways.
  const southern = lat < 0;
  return [
    southern ? lon - longDeltaBottom : lon - longDeltaTop,
    lat - latDelta,
    southern ? lon + longDeltaBottom : lon + longDeltaTop,
    lat + latDelta,
  ];
}

/**
 * The cells a search scans, in membersOfAllNeighbors's order: the centre,
 * north, south, east, west, north-east, north-west, south-east,
 * south-west. A cell left out is NO_HASH.
 */
export function searchCells(s: GeoShape): GeoHashBits[] {
  const [minLon, minLat, maxLon, maxLat] = boundingBox(s);
  const radiusMeters =
    (s.type === 'radius'
      ? s.radius
      : Math.sqrt((s.width / 2) * (s.width / 2) + (s.height / 2) * (s.height / 2))) * s.conversion;
  let steps = estimateStepsByRadius(radiusMeters, s.lat);
  let hash = encode(WGS84_LONG, WGS84_LAT, s.lon, s.lat, steps) ?? { bits: 0, step: steps };
  let n = neighbors(hash);
  let area: GeoHashArea = decode(WGS84_LONG, WGS84_LAT, hash);

  // The estimated step may be too coarse near a cell's edge: one of the
  // four side cells does not reach past the search area.
  const north = decode(WGS84_LONG, WGS84_LAT, n.north);
  const south = decode(WGS84_LONG, WGS84_LAT, n.south);
  const east = decode(WGS84_LONG, WGS84_LAT, n.east);
  const west = decode(WGS84_LONG, WGS84_LAT, n.west);
  const decreaseStep =
    north.latMax < maxLat || south.latMin > minLat || east.lonMax < maxLon || west.lonMin > minLon;
  if (steps > 1 && decreaseStep) {
    steps--;
    hash = encode(WGS84_LONG, WGS84_LAT, s.lon, s.lat, steps) ?? { bits: 0, step: steps };
    n = neighbors(hash);
    area = decode(WGS84_LONG, WGS84_LAT, hash);
  }

  // Leave out the cells the search area does not reach.
  if (steps >= 2) {
    if (area.latMin < minLat) {
      n.south = NO_HASH;
      n.southWest = NO_HASH;
      n.southEast = NO_HASH;
    }
    if (area.latMax > maxLat) {
      n.north = NO_HASH;
      n.northEast = NO_HASH;
      n.northWest = NO_HASH;
    }
    if (area.lonMin < minLon) {
      n.west = NO_HASH;
      n.southWest = NO_HASH;
      n.northWest = NO_HASH;
    }
    if (area.lonMax > maxLon) {
      n.east = NO_HASH;
      n.southEast = NO_HASH;
      n.northEast = NO_HASH;
    }
  }
  return [
    hash,
    n.north,
    n.south,
    n.east,
    n.west,
    n.northEast,
    n.northWest,
    n.southEast,
    n.southWest,
  ];
}
