import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { PARAMETERS } from '../src/commands/server/config-parameters.js';

/**
 * The README's conformance section names every parameter strata accepts
 * and ignores (`effect: 'none'`), by name or by a `prefix-*` family, and
 * none it acts on is listed as ignored.
 */
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const start = readme.indexOf('Accepted and ignored:');
const section = readme.slice(start, readme.indexOf('\n## ', start));
const named = [...section.matchAll(/`([a-z0-9_*-]+)`/g)].map((m) => m[1]!);
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

describe('the README conformance table', () => {
  test('names every parameter that is accepted and ignored', () => {
    expect(start).toBeGreaterThan(0);
    const missing = PARAMETERS.filter((p) => p.effect === 'none' && !covers(p.name)).map(
      (p) => p.name,
    );
    expect(missing).toEqual([]);
  });
});
