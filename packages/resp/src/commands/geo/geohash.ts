/**
 * Redis's geohash arithmetic (src/geohash.c), in doubles exactly as the C
 * code computes them: a point is a cell index per axis (latitude and
 * longitude, `step` bits each), interleaved into one integer with the
 * latitude in the even bits and the longitude in the odd ones. At step 26
 * that is the 52-bit score a GEOADD member gets.
 */

/** One axis's range of coordinates. */
export interface CoordRange {
  readonly min: number;
  readonly max: number;
}

/** A cell: its interleaved index and the bits per axis. bits 0, step 0 is "none" (GZERO). */
export interface GeoHashBits {
  readonly bits: number;
  readonly step: number;
}

/** A cell's extent. */
export interface GeoHashArea {
  readonly lonMin: number;
  readonly lonMax: number;
  readonly latMin: number;
  readonly latMax: number;
}

export const GEO_STEP_MAX = 26;
export const GEO_LAT_MIN = -85.05112878;
export const GEO_LAT_MAX = 85.05112878;
export const GEO_LONG_MIN = -180;
export const GEO_LONG_MAX = 180;

/** The WGS84 ranges the scores are encoded with (Redis's geohashGetCoordRange). */
export const WGS84_LONG: CoordRange = { min: GEO_LONG_MIN, max: GEO_LONG_MAX };
export const WGS84_LAT: CoordRange = { min: GEO_LAT_MIN, max: GEO_LAT_MAX };
/** The standard geohash ranges GEOHASH re-encodes with. */
export const STANDARD_LONG: CoordRange = { min: -180, max: 180 };
export const STANDARD_LAT: CoordRange = { min: -90, max: 90 };

export const NO_HASH: GeoHashBits = { bits: 0, step: 0 };

const TWO32 = 2 ** 32;

/** The low 16 bits of `v` spread to the even bits of a 32-bit word. */
function spread16(v: number): number {
  let x = v & 0xffff;
  x = (x | (x << 8)) & 0x00ff00ff;
  x = (x | (x << 4)) & 0x0f0f0f0f;
  x = (x | (x << 2)) & 0x33333333;
  x = (x | (x << 1)) & 0x55555555;
  return x;
}

/** The even bits of a 32-bit word packed into 16 bits. */
function squash16(v: number): number {
  let x = v & 0x55555555;
  x = (x | (x >>> 1)) & 0x33333333;
  x = (x | (x >>> 2)) & 0x0f0f0f0f;
  x = (x | (x >>> 4)) & 0x00ff00ff;
  x = (x | (x >>> 8)) & 0x0000ffff;
  return x;
}

/** interleave64's two 32-bit halves: `lat` in the even bits, `lon` in the odd. */
function interleaveHalves(lat: number, lon: number): [hi: number, lo: number] {
  const lo = (spread16(lat) | (spread16(lon) << 1)) >>> 0;
  const hi = (spread16(lat >>> 16) | (spread16(lon >>> 16) << 1)) >>> 0;
  return [hi, lo];
}

/** Redis's interleave64 for indexes whose result stays below 2^53 (every cell up to step 26). */
export function interleave(lat: number, lon: number): number {
  const [hi, lo] = interleaveHalves(lat, lon);
  return hi * TWO32 + lo;
}

/**
 * The interleaved bits as the uint64 Redis has, then as the double ZADD
 * reads from its decimal string: above 2^53 (longitude exactly 180) it
 * rounds as strtod does, which Number(bigint) matches.
 */
function interleaveToScore(lat: number, lon: number): number {
  const [hi, lo] = interleaveHalves(lat, lon);
  if (hi < 0x200000) return hi * TWO32 + lo;
  return Number((BigInt(hi) << 32n) | BigInt(lo));
}

/** The (lat, lon) cell indexes of interleaved bits (Redis's deinterleave64 halves). */
export function deinterleave(bits: number): [lat: number, lon: number] {
  let hi: number;
  let lo: number;
  if (bits >= 0 && bits < 2 ** 53) {
    hi = Math.floor(bits / TWO32);
    lo = bits - hi * TWO32;
  } else {
    // A score no GEOADD wrote: the uint64 the C cast makes of it.
    const u = BigInt.asUintN(64, BigInt(Number.isFinite(bits) ? Math.trunc(bits) : 0));
    hi = Number(u >> 32n);
    lo = Number(u & 0xffffffffn);
  }
  const lat = (squash16(lo) | (squash16(hi) << 16)) >>> 0;
  const lon = (squash16(lo >>> 1) | (squash16(hi >>> 1) << 16)) >>> 0;
  return [lat, lon];
}

/**
 * geohashEncode: the cell of (lon, lat) at `step` within the ranges, or
 * null outside them (or outside the WGS84 limits, which Redis checks too).
 */
export function encode(
  lonRange: CoordRange,
  latRange: CoordRange,
  lon: number,
  lat: number,
  step: number,
): GeoHashBits | null {
  if (lon > 180 || lon < -180 || lat > GEO_LAT_MAX || lat < GEO_LAT_MIN) return null;
  if (lat < latRange.min || lat > latRange.max || lon < lonRange.min || lon > lonRange.max) {
    return null;
  }
  const scale = 2 ** step;
  const latOffset = ((lat - latRange.min) / (latRange.max - latRange.min)) * scale;
  const lonOffset = ((lon - lonRange.min) / (lonRange.max - lonRange.min)) * scale;
  // The C code passes the doubles to uint32_t parameters: truncation.
  return { bits: interleave(Math.trunc(latOffset), Math.trunc(lonOffset)), step };
}

/** GEOADD's score of (lon, lat): geohashEncodeWGS84 at step 26, aligned to 52 bits. */
export function scoreOf(lon: number, lat: number): number {
  const scale = 2 ** GEO_STEP_MAX;
  const latOffset = ((lat - GEO_LAT_MIN) / (GEO_LAT_MAX - GEO_LAT_MIN)) * scale;
  const lonOffset = ((lon - GEO_LONG_MIN) / (GEO_LONG_MAX - GEO_LONG_MIN)) * scale;
  return interleaveToScore(Math.trunc(latOffset), Math.trunc(lonOffset));
}

/** geohashDecode: the extent of a cell. */
export function decode(lonRange: CoordRange, latRange: CoordRange, h: GeoHashBits): GeoHashArea {
  const [ilat, ilon] = deinterleave(h.bits);
  const latScale = latRange.max - latRange.min;
  const lonScale = lonRange.max - lonRange.min;
  const cells = 2 ** h.step;
  return {
    latMin: latRange.min + (ilat / cells) * latScale,
    latMax: latRange.min + ((ilat + 1) / cells) * latScale,
    lonMin: lonRange.min + (ilon / cells) * lonScale,
    lonMax: lonRange.min + ((ilon + 1) / cells) * lonScale,
  };
}

/** decodeGeohash: the point a member's score stands for (step 26, WGS84). */
export function pointOf(score: number): [lon: number, lat: number] {
  const out: [number, number] = [0, 0];
  pointInto(score, out);
  return out;
}

const CELLS_26 = 2 ** GEO_STEP_MAX;
const LAT_SCALE = GEO_LAT_MAX - GEO_LAT_MIN;
const LON_SCALE = GEO_LONG_MAX - GEO_LONG_MIN;

/**
 * pointOf into `out` ([lon, lat]), allocating nothing: a search decodes
 * every candidate of its cells. The arithmetic is decode's and Redis's
 * geohashDecodeAreaToLongLat's (the centre, clamped to the WGS84 limits),
 * step for step, so the bits are the same.
 */
export function pointInto(score: number, out: [number, number]): void {
  let ilat: number;
  let ilon: number;
  if (score >= 0 && score < 2 ** 53) {
    const hi = Math.floor(score / TWO32);
    const lo = score - hi * TWO32;
    ilat = (squash16(lo) | (squash16(hi) << 16)) >>> 0;
    ilon = (squash16(lo >>> 1) | (squash16(hi >>> 1) << 16)) >>> 0;
  } else [ilat, ilon] = deinterleave(score);
  const latMin = GEO_LAT_MIN + (ilat / CELLS_26) * LAT_SCALE;
  const latMax = GEO_LAT_MIN + ((ilat + 1) / CELLS_26) * LAT_SCALE;
  const lonMin = GEO_LONG_MIN + (ilon / CELLS_26) * LON_SCALE;
  const lonMax = GEO_LONG_MIN + ((ilon + 1) / CELLS_26) * LON_SCALE;
  let lon = (lonMin + lonMax) / 2;
  if (lon > GEO_LONG_MAX) lon = GEO_LONG_MAX;
  if (lon < GEO_LONG_MIN) lon = GEO_LONG_MIN;
  let lat = (latMin + latMax) / 2;
  if (lat > GEO_LAT_MAX) lat = GEO_LAT_MAX;
  if (lat < GEO_LAT_MIN) lat = GEO_LAT_MIN;
  out[0] = lon;
  out[1] = lat;
}

/** The 8 cells around one, as Redis's geohashNeighbors (indexes wrap around). */
export interface GeoHashNeighbors {
  north: GeoHashBits;
  east: GeoHashBits;
  west: GeoHashBits;
  south: GeoHashBits;
  northEast: GeoHashBits;
  southEast: GeoHashBits;
  northWest: GeoHashBits;
  southWest: GeoHashBits;
}

/**
 * geohash_move_x / geohash_move_y add or subtract one in an axis's bits
 * with the carry kept inside `step` bits: the moved index wraps modulo
 * 2^step, the other axis is left as it was (even when it overflows the
 * step, as a cell encoded at latitude 85.05112878 does: Redis scans such a
 * cell, so we must too).
 */
function moved(h: GeoHashBits, dLon: number, dLat: number): GeoHashBits {
  const [lat, lon] = deinterleave(h.bits);
  const mask = 2 ** h.step - 1;
  const nlat = dLat === 0 ? lat : (lat + dLat) & mask;
  const nlon = dLon === 0 ? lon : (lon + dLon) & mask;
  return { bits: interleave(nlat, nlon), step: h.step };
}

export function neighbors(h: GeoHashBits): GeoHashNeighbors {
  return {
    north: moved(h, 0, 1),
    east: moved(h, 1, 0),
    west: moved(h, -1, 0),
    south: moved(h, 0, -1),
    northEast: moved(h, 1, 1),
    southEast: moved(h, 1, -1),
    northWest: moved(h, -1, 1),
    southWest: moved(h, -1, -1),
  };
}

/** geohashAlign52Bits: the cell's index as the first step-26 score in it. */
export function align52(h: GeoHashBits): number {
  return h.bits * 2 ** (52 - h.step * 2);
}
