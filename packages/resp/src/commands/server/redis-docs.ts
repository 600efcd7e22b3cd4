import type { ReplyWriter } from '@strata/protocol';
import recorded from './redis-command-docs.json' with { type: 'json' };

/**
 * Redis's COMMAND DOCS entries (summary, since, group, complexity, doc
 * flags, deprecation, history and the argument trees that redis-cli's hints
 * and `help <command>` read), recorded from redis-server 7.0.15 by
 * test/compat/command-docs-compat.test.ts (STRATA_RECORD_COMPAT=1) and
 * written back as Redis wrote them, for the commands Redis 7.0 has; the
 * others answer from their definitions. One value per reply type, so RESP2
 * and RESP3 come out as Redis's:
 * a string is a bulk string, a number an integer, an array an array,
 * `{ simple }` a status, `{ set }` a set, `{ pairs }` a map of bulk keys.
 */
export type DocValue =
  | string
  | number
  | readonly DocValue[]
  | { readonly simple: string }
  | { readonly set: readonly DocValue[] }
  | { readonly pairs: readonly (readonly [string, DocValue])[] };

/** A command's recorded fields but its subcommands, in Redis's order. */
export type CommandDocs = readonly (readonly [string, DocValue])[];

/** The recorded fields of every command, by full name (`client|kill`). */
export type RecordedDocs = Readonly<Record<string, CommandDocs>>;

/**
 * The file keeps each command's fields as JSON text, parsed at the
 * command's first COMMAND DOCS: the whole table as one object literal cost
 * every start ~4 ms (its ~240 strings cost nothing until read).
 */
const RECORDED: Readonly<Record<string, string>> = recorded;
const parsed = new Map<string, CommandDocs>();

/** The file's form of `docs`: each command's fields as JSON text. */
export function encodeRecordedDocs(docs: RecordedDocs): Record<string, string> {
  return Object.fromEntries(Object.entries(docs).map(([name, d]) => [name, JSON.stringify(d)]));
}

/** Redis's docs of `fullName` but its subcommands, or null for a command Redis 7.0 lacks. */
export function redisDocs(fullName: string): CommandDocs | null {
  if (!Object.hasOwn(RECORDED, fullName)) return null;
  let docs = parsed.get(fullName);
  if (docs === undefined) {
    docs = JSON.parse(RECORDED[fullName]!) as CommandDocs;
    parsed.set(fullName, docs);
  }
  return docs;
}

export function writeDocValue(w: ReplyWriter, v: DocValue): void {
  if (typeof v === 'string') w.bulk(v);
  else if (typeof v === 'number') w.integer(v);
  else if ('pairs' in v) {
    w.map(v.pairs.length);
    for (const [k, e] of v.pairs) {
      w.bulk(k);
      writeDocValue(w, e);
    }
  } else if ('simple' in v) w.simple(v.simple);
  else if ('set' in v) {
    w.set(v.set.length);
    for (const e of v.set) writeDocValue(w, e);
  } else {
    w.array(v.length);
    for (const e of v) writeDocValue(w, e);
  }
}
