import type { ScriptMode } from './script-run.js';

/** Script flags Redis 7.0 knows (`#!lua flags=...`); only no-writes changes what runs here. */
const FLAGS = new Set([
  'no-writes',
  'allow-oom',
  'allow-stale',
  'no-cluster',
  'allow-cross-slot-keys',
]);

export type Shebang =
  | {
      readonly ok: true;
      /** Bytes of the shebang line, its newline excluded (0: none). */
      readonly length: number;
      /** null: no shebang, Redis's rules for scripts without one. */
      readonly mode: ScriptMode | null;
    }
  | { readonly ok: false; readonly error: string };

/** Redis 7.0's evalExtractShebangFlags, with its errors. */
export function parseShebang(body: Buffer): Shebang {
  if (body[0] !== 0x23 || body[1] !== 0x21) return { ok: true, length: 0, mode: null };
  const end = body.indexOf(0x0a);
  if (end < 0) return { ok: false, error: 'ERR Invalid script shebang' };
  const parts = body
    .toString('latin1', 0, end)
    .split(' ')
    .filter((p) => p !== '');
  if (parts[0] !== '#!lua') {
    return { ok: false, error: `ERR Unexpected engine in script shebang: ${parts[0]}` };
  }
  let readOnly = false;
  for (const part of parts.slice(1)) {
    if (!part.startsWith('flags='))
      return { ok: false, error: `ERR Unknown lua shebang option: ${part}` };
    for (const flag of part.slice(6).split(',')) {
      if (flag === '') continue;
      if (!FLAGS.has(flag))
        return { ok: false, error: `ERR Unexpected flag in script shebang: ${flag}` };
      if (flag === 'no-writes') readOnly = true;
    }
  }
  return { ok: true, length: end, mode: { readOnly } };
}
