import { splitInlineArgs } from '@strata/protocol';

/** Script flags Redis 7.0 knows (`#!lua flags=...`, register_function's `flags`), in its order. */
export const SCRIPT_FLAGS = [
  'no-writes',
  'allow-oom',
  'allow-stale',
  'no-cluster',
  'allow-cross-slot-keys',
] as const;

export type ScriptFlag = (typeof SCRIPT_FLAGS)[number];

const KNOWN: ReadonlySet<string> = new Set(SCRIPT_FLAGS);

export function isScriptFlag(f: string): f is ScriptFlag {
  return KNOWN.has(f);
}

export type Shebang =
  | {
      readonly ok: true;
      /** Bytes of the shebang line, its newline excluded (0: none). */
      readonly length: number;
      /**
       * The script's flags; null when it has no shebang (Redis's
       * EVAL_COMPAT_MODE: none of the flags' rules apply). `#!lua` alone
       * is an empty set: a flagged script that may write.
       */
      readonly flags: ReadonlySet<ScriptFlag> | null;
    }
  | { readonly ok: false; readonly error: string };

/**
 * Redis 7.0's evalExtractShebangFlags, with its errors: the line is split
 * as sdssplitargs splits it (blanks, quotes and escapes), `flags=` takes a
 * comma-separated list in which every item, an empty one too, must be a
 * known flag.
 */
export function parseShebang(body: Buffer): Shebang {
  if (body[0] !== 0x23 || body[1] !== 0x21) return { ok: true, length: 0, flags: null };
  const end = body.indexOf(0x0a);
  if (end < 0) return { ok: false, error: 'ERR Invalid script shebang' };
  const parts = splitInlineArgs(body, 0, end, true);
  if (parts === null || parts.length === 0) {
    return { ok: false, error: 'ERR Invalid engine in script shebang' };
  }
  // Redis's %s of a C string: its words stop at a 0 byte.
  const word = (b: Buffer) => {
    const nul = b.indexOf(0);
    return b.toString('latin1', 0, nul < 0 ? b.length : nul);
  };
  if (word(parts[0]!) !== '#!lua') {
    return { ok: false, error: `ERR Unexpected engine in script shebang: ${word(parts[0]!)}` };
  }
  const flags = new Set<ScriptFlag>();
  for (const part of parts.slice(1)) {
    const text = part.toString('latin1');
    if (!word(part).startsWith('flags=')) {
      return { ok: false, error: `ERR Unknown lua shebang option: ${word(part)}` };
    }
    const list = text.slice(6);
    // sdssplitlen of an empty string has no items; of "a," two, the second empty.
    for (const item of list === '' ? [] : list.split(',')) {
      // strcmp: an item compares as far as a 0 byte.
      const flag = word(Buffer.from(item, 'latin1'));
      if (!isScriptFlag(flag)) {
        return { ok: false, error: `ERR Unexpected flag in script shebang: ${flag}` };
      }
      flags.add(flag);
    }
  }
  return { ok: true, length: end, flags };
}
