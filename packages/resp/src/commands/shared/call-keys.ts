import { eqi } from '../../args.js';
import type { CommandSpec, KeySpec } from '../../server/command-table.js';

/**
 * The keys of one call and what each is used for, as Redis's
 * getKeysFromCommandWithSpecs gives them: ACL key checks and COMMAND
 * GETKEYS/GETKEYSANDFLAGS read them here, one owner for both.
 */

/** Commands whose keys follow a numkeys argument (argument 2) and have no keysOf of their own. */
const NUMKEYS: ReadonlySet<string> = new Set([
  'eval',
  'evalsha',
  'eval_ro',
  'evalsha_ro',
  'fcall',
  'fcall_ro',
]);

/** Redis's doesCommandHaveKeys: a key range, key specs, or a rule of its own. */
export function commandHasKeys(spec: CommandSpec): boolean {
  const d = spec.definition;
  return (
    spec.firstKey > 0 ||
    d.keysOf !== undefined ||
    d.keywordKeys !== undefined ||
    (d.keySpecs !== undefined && d.keySpecs.length > 0) ||
    NUMKEYS.has(spec.fullName)
  );
}

/**
 * The key positions of a call: the command's own, or those after EVAL's
 * and FCALL's numkeys (none when numkeys is out of range, as Redis's
 * genericGetKeys).
 */
export function callKeyIndexes(spec: CommandSpec, argv: readonly Uint8Array[]): number[] {
  if (spec.definition.keysOf !== undefined || !NUMKEYS.has(spec.fullName)) {
    return spec.keyIndexes(argv);
  }
  const n = argv.length > 2 ? Number(Buffer.from(argv[2]!).toString('latin1')) : 0;
  if (!Number.isSafeInteger(n) || n <= 0 || n > argv.length - 3) return [];
  return Array.from({ length: n }, (_, k) => 3 + k);
}

/** Whether an index spec's range holds argument `index` (a last key below 0 counts from the end). */
function specCovers(s: KeySpec, index: number, argc: number): boolean {
  const begin = s.beginIndex;
  if (typeof begin !== 'number') return false;
  const r = s.findRange;
  if (r === 'unknown') return begin === index;
  const last = r.lastKey >= 0 ? begin + r.lastKey : argc + r.lastKey;
  return index >= begin && index <= last && (index - begin) % r.keyStep === 0;
}

/** SET without GET overwrites its key, with GET it reads it too (Redis's setGetKeys). */
const SET_PLAIN = ['OW', 'update'];
const SET_GET = ['RW', 'access', 'update'];

/**
 * The key-spec flags of the key at `index`: a command with variable flags
 * as its getkeys proc gives them (SET reads its key only with GET), a
 * command's own specs by position (the index spec whose range holds it;
 * else the last spec's: SORT's STORE, GEORADIUS's STORE/STOREDIST), else
 * the command's.
 */
export function keyFlagsAt(
  spec: CommandSpec,
  index: number,
  argv: readonly Uint8Array[],
): readonly string[] {
  if (spec.fullName === 'set' && spec.keyFlags.includes('variable_flags')) {
    for (let i = 3; i < argv.length; i++) if (eqi(argv[i]!, 'get')) return SET_GET;
    return SET_PLAIN;
  }
  const specs = spec.definition.keySpecs;
  if (specs !== undefined) {
    for (const s of specs) if (specCovers(s, index, argv.length)) return s.flags;
    const last = specs[specs.length - 1];
    if (last !== undefined) return last.flags;
  }
  return spec.keyFlags;
}
