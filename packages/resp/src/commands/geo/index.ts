import { eqi } from '../../args.js';
import type { CommandDefinition, KeySpec } from '../../server/command-table.js';
import type { CommandFamily } from '../family.js';
import { KEY1, SRC_DST } from '../shared/key-positions.js';
import { geoadd, geodist, geohash, geopos } from './geo-basic.js';
import { geoSearch } from './geo-search.js';

/**
 * Geospatial indexes (Redis 7.0's src/geo.c): sorted sets whose scores are
 * 52-bit geohashes. GEOADD, GEOPOS, GEODIST, GEOHASH, GEOSEARCH,
 * GEOSEARCHSTORE and the GEORADIUS family.
 */

const geoGroup = { acl: ['geo'], group: 'geo' } as const;

const SEARCH_COMPLEXITY =
  'O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape';
const RADIUS_COMPLEXITY =
  'O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.';

const range0 = { lastKey: 0, keyStep: 1, limit: 0 } as const;

/** GEOSEARCHSTORE: the destination is written over, the source read. */
const GEOSEARCHSTORE_KEY_SPECS: readonly KeySpec[] = [
  { flags: ['OW', 'update'], beginIndex: 1, findRange: range0 },
  { flags: ['RO', 'access'], beginIndex: 2, findRange: range0 },
];

/** GEORADIUS(BYMEMBER): the source, then a STORE or STOREDIST destination searched from `from`. */
function radiusKeySpecs(from: number): readonly KeySpec[] {
  return [
    { flags: ['RO', 'access'], beginIndex: 1, findRange: range0 },
    {
      flags: ['OW', 'update'],
      beginIndex: { keyword: 'STORE', startFrom: from },
      findRange: range0,
    },
    {
      flags: ['OW', 'update'],
      beginIndex: { keyword: 'STOREDIST', startFrom: from },
      findRange: range0,
    },
  ];
}

/** The argument after the first `keyword` at or after `from` (a keyword key spec), or -1. */
function keywordKey(argv: readonly Uint8Array[], keyword: string, from: number): number {
  for (let i = from; i < argv.length - 1; i++) if (eqi(argv[i]!, keyword)) return i + 1;
  return -1;
}

/** The keys the specs find, in their order: the source, STORE's, STOREDIST's (COMMAND GETKEYS, ACL). */
const radiusKeys =
  (from: number) =>
  (argv: readonly Uint8Array[]): number[] => {
    const keys = [1];
    for (const keyword of ['store', 'storedist']) {
      const k = keywordKey(argv, keyword, from);
      if (k > 0) keys.push(k);
    }
    return keys;
  };

/** georadiusGeneric: the last STORE or STOREDIST names the destination written. */
const radiusChangedKeys =
  (from: number) =>
  (argv: readonly Uint8Array[]): number[] => {
    let stored = -1;
    for (let i = from; i < argv.length - 1; i++) {
      if (eqi(argv[i]!, 'store') || eqi(argv[i]!, 'storedist')) stored = ++i;
    }
    return stored < 0 ? [] : [stored];
  };

const geoCommands: CommandDefinition[] = [
  {
    name: 'geoadd',
    arity: -5,
    flags: ['write', 'denyoom'],
    ...KEY1,
    ...geoGroup,
    since: '3.2.0',
    complexity:
      'O(log(N)) for each item added, where N is the number of elements in the sorted set.',
    summary:
      'Add one or more geospatial items in the geospatial index represented using a sorted set',
    handler: geoadd,
  },
  {
    name: 'geopos',
    arity: -2,
    flags: ['readonly'],
    ...KEY1,
    ...geoGroup,
    since: '3.2.0',
    complexity: 'O(N) where N is the number of members requested.',
    summary: 'Returns longitude and latitude of members of a geospatial index',
    handler: geopos,
  },
  {
    name: 'geodist',
    arity: -4,
    flags: ['readonly'],
    ...KEY1,
    ...geoGroup,
    since: '3.2.0',
    complexity: 'O(log(N))',
    summary: 'Returns the distance between two members of a geospatial index',
    handler: geodist,
  },
  {
    name: 'geohash',
    arity: -2,
    flags: ['readonly'],
    ...KEY1,
    ...geoGroup,
    since: '3.2.0',
    complexity:
      'O(log(N)) for each member requested, where N is the number of elements in the sorted set.',
    summary: 'Returns members of a geospatial index as standard geohash strings',
    handler: geohash,
  },
  {
    name: 'geosearch',
    arity: -7,
    flags: ['readonly'],
    ...KEY1,
    ...geoGroup,
    since: '6.2.0',
    complexity: SEARCH_COMPLEXITY,
    summary:
      'Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle.',
    handler: (c, a) => geoSearch(c, a, 'geosearch'),
  },
  {
    name: 'geosearchstore',
    arity: -8,
    flags: ['write', 'denyoom'],
    ...SRC_DST,
    ...geoGroup,
    keySpecs: GEOSEARCHSTORE_KEY_SPECS,
    changedKeysOf: () => [1],
    since: '6.2.0',
    complexity: SEARCH_COMPLEXITY,
    summary:
      'Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle, and store the result in another key.',
    handler: (c, a) => geoSearch(c, a, 'geosearchstore'),
  },
  {
    name: 'georadius',
    arity: -6,
    flags: ['write', 'denyoom', 'movablekeys'],
    ...KEY1,
    ...geoGroup,
    keySpecs: radiusKeySpecs(6),
    keysOf: radiusKeys(6),
    changedKeysOf: radiusChangedKeys(6),
    since: '3.2.0',
    complexity: RADIUS_COMPLEXITY,
    summary:
      'Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a point',
    handler: (c, a) => geoSearch(c, a, 'georadius'),
  },
  {
    name: 'georadius_ro',
    arity: -6,
    flags: ['readonly'],
    ...KEY1,
    ...geoGroup,
    since: '3.2.10',
    complexity: RADIUS_COMPLEXITY,
    summary: 'A read-only variant for GEORADIUS',
    handler: (c, a) => geoSearch(c, a, 'georadius_ro'),
  },
  {
    name: 'georadiusbymember',
    arity: -5,
    flags: ['write', 'denyoom', 'movablekeys'],
    ...KEY1,
    ...geoGroup,
    keySpecs: radiusKeySpecs(5),
    keysOf: radiusKeys(5),
    changedKeysOf: radiusChangedKeys(5),
    since: '3.2.0',
    complexity: RADIUS_COMPLEXITY,
    summary:
      'Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a member',
    handler: (c, a) => geoSearch(c, a, 'georadiusbymember'),
  },
  {
    name: 'georadiusbymember_ro',
    arity: -5,
    flags: ['readonly'],
    ...KEY1,
    ...geoGroup,
    since: '3.2.10',
    complexity: RADIUS_COMPLEXITY,
    summary: 'A read-only variant for GEORADIUSBYMEMBER',
    handler: (c, a) => geoSearch(c, a, 'georadiusbymember_ro'),
  },
];

/** Geospatial indexes: GEOADD, GEOSEARCH, GEORADIUS... */
export const geoFamily: CommandFamily = { name: 'geo', commands: geoCommands };
