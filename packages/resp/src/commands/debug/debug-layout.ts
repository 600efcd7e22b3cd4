import type { CollectionValue } from '@strata/collections';
import { RecordType } from '@strata/hlog';
import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { typeName } from '../keys/keys.js';

/** Which of Redis's encodings DEBUG LISTPACK and DEBUG QUICKLIST print. */
export type DumpedEncoding = 'listpack' | 'quicklist';

const noSuchKey = () => new CommandError('ERR_NO_SUCH_KEY', 'ERR no such key');

/** Strata's own layout of a collection: what stands in for lpRepr/quicklistRepr. */
function layoutLine(key: Buffer, v: CollectionValue): string {
  return (
    `DEBUG ${v.encoding().toUpperCase()} ${key.toString('latin1')}: ${typeName(v.type)} of ` +
    `${v.size} element(s), ${v.encoding()} encoding, its record ${v.encode().length} bytes ` +
    `in the log, ${v.memoryBytes()} bytes decoded in the collection cache`
  );
}

/**
 * The value's encoding as Redis 7.0 would have it: strata's small lists and
 * sets of strings are listpacks by 7.2's rules, where 7.0 keeps every list
 * a quicklist and such sets hashtables.
 */
function redis70Encoding(v: CollectionValue): string {
  if (v.type === RecordType.LIST) return 'quicklist';
  const e = v.encoding();
  return v.type === RecordType.SET && e === 'listpack' ? 'hashtable' : e;
}

/**
 * DEBUG LISTPACK key and DEBUG QUICKLIST key [0|1]: Redis prints the
 * encoding's internals on its stdout and answers a status. Here the value's
 * encoding is Redis 7.0's (redis70Encoding), and the line printed is strata's own layout of the
 * value, to the server log. A value in another encoding
 * (a string included) gets Redis's error.
 */
export function debugLayout(want: DumpedEncoding) {
  const wrong =
    want === 'listpack'
      ? 'ERR Not a listpack encoded object.'
      : 'ERR Not a quicklist encoded object.';
  const status =
    want === 'listpack'
      ? 'Listpack structure printed on stdout'
      : 'Quicklist structure printed on stdout';
  return (c: Client, argv: Buffer[]): CommandResult => {
    const key = argv[2]!;
    const answer = (r: { status: 'found'; type: number } | { status: 'notFound' }) => {
      if (r.status === 'notFound') throw noSuchKey();
      if (r.type === RecordType.STRING) throw new CommandError('ERR_WRONG_ENCODING', wrong);
      const found = c.collections.get(key, r.type);
      const show = (x: Awaited<typeof found>) => {
        if (x.status !== 'found') throw noSuchKey();
        if (redis70Encoding(x.value) !== want) throw new CommandError('ERR_WRONG_ENCODING', wrong);
        c.server.log('notice', layoutLine(key, x.value));
        c.reply.simple(status);
      };
      if (found instanceof Promise) return found.then(show);
      show(found);
      return undefined;
    };
    const probe = (): CommandResult => {
      const p = c.store.probe(key);
      if (p.status === 'pending') return p.pending.then(answer);
      return answer(p);
    };
    // DEBUG names no key: the database may not be open yet.
    if (c.server.keyspace.get(c.db) === undefined) {
      return c.server.keyspace.ensure(c.db).then(probe);
    }
    return probe();
  };
}
