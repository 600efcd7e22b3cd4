import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { PARAMETERS } from '../src/commands/server/config-parameters.js';

/**
 * The README's conformance section names every parameter strata accepts
 * and ignores (`effect: 'none'`), by name or by a `prefix-*` family, none
 * it acts on by name, and counts them as the table does.
 */
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const start = readme.indexOf('Accepted and ignored:');
const section = readme.slice(start, readme.indexOf('\n## ', start));
/** The names in the table's first column (the second says why). */
const named = [...section.matchAll(/^\| ([^|]*) \|/gm)].flatMap((row) =>
  [...row[1]!.matchAll(/`([a-z0-9_*-]+)`/g)].map((m) => m[1]!),
);
const covers = (name: string) =>
  named.some((n) =>
    n.endsWith('*')
      ? n.startsWith('*')
        ? name.endsWith(n.slice(1))
        : name.startsWith(n.slice(0, -1))
      : n.startsWith('*')
        ? name.endsWith(n.slice(1))
        : n === name,
  );

/** The parts strata does not have yet, by Redis's names for them. */
const REPLICATION_CLUSTER_TLS =
  /^(repl-|replica-|min-replicas-|masterauth$|masteruser$|replicaof$|cluster-|tls-)/;

describe('the README conformance table', () => {
  test('says how many parameters are acted on and ignored, as the table has it', () => {
    const m =
      /Of Redis 7\.0's (\d+) parameters, (\d+) are acted on and (\d+) accepted and\s+ignored; (\d+) of those are replication, cluster and TLS/.exec(
        readme,
      );
    expect(m).not.toBeNull();
    const ignored = PARAMETERS.filter((p) => p.effect === 'none');
    expect(m!.slice(1).map(Number)).toEqual([
      PARAMETERS.length,
      PARAMETERS.length - ignored.length,
      ignored.length,
      ignored.filter((p) => REPLICATION_CLUSTER_TLS.test(p.name)).length,
    ]);
  });

  test('lists no parameter it acts on among the ignored ones', () => {
    const acted = PARAMETERS.filter((p) => p.effect !== 'none' && named.includes(p.name));
    expect(acted.map((p) => p.name)).toEqual([]);
  });

  test('names every parameter that is accepted and ignored', () => {
    expect(start).toBeGreaterThan(0);
    const missing = PARAMETERS.filter((p) => p.effect === 'none' && !covers(p.name)).map(
      (p) => p.name,
    );
    expect(missing).toEqual([]);
  });
});
