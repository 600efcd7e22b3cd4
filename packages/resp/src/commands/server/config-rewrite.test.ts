import { describe, expect, test } from 'vitest';
import { PARAMETER_NAMES, type ParameterSpec } from './config-parameters.js';
import { REWRITE_SIGNATURE, rewriteConfigText } from './config-rewrite.js';

/** Values as CONFIG GET would print them: the defaults but these. */
function values(set: Record<string, string>): (p: ParameterSpec) => string {
  for (const name of Object.keys(set)) expect(PARAMETER_NAMES.has(name), name).toBe(true);
  return (p) => set[p.name] ?? p.default;
}

// The expected texts are what redis-server 7.0.15 writes for the same
// file and values (apps/server/test/config-rewrite.test.ts compares with a
// live one).
describe('rewriteConfigText', () => {
  test('replaces values in place, keeps comments and foreign lines, blanks extra save lines', () => {
    const text = [
      '# top',
      'port 6379',
      'memory 32mb',
      'maxclients 100',
      'save 900 1',
      'save 300 10',
      '',
      'save 60 10000',
      'list-max-ziplist-size -2',
      'include other.conf',
      '',
    ].join('\n');
    const out = rewriteConfigText(
      text,
      values({
        port: '6379',
        maxclients: '50',
        save: '60 5',
        'list-max-listpack-size': '-3',
        dir: '/data',
        'slowlog-max-len': '64',
        'client-output-buffer-limit':
          'normal 0 0 0 slave 268435456 67108864 60 pubsub 67108864 16777216 90',
        'proc-title-template': 'a "b"\n',
      }),
    );
    expect(out.split('\n')).toEqual([
      '# top',
      'port 6379',
      'memory 32mb',
      'maxclients 50',
      'save 60 5',
      '',
      'list-max-listpack-size -3',
      'include other.conf',
      REWRITE_SIGNATURE,
      ...[
        'client-output-buffer-limit pubsub 64mb 16mb 90',
        'dir "/data"',
        'latency-tracking-info-percentiles 50 99 99.9',
        'proc-title-template "a \\"b\\"\\n"',
        'slowlog-max-len 64',
      ].sort((a, b) => out.indexOf(a) - out.indexOf(b)),
      '',
    ]);
  });

  test('a second rewrite with the same values changes nothing; the signature is not repeated', () => {
    const v = values({ hz: '15', 'maxmemory-policy': 'allkeys-lru', save: '' });
    const once = rewriteConfigText('hz 10\n', v);
    expect(once).toContain('save ""');
    expect(rewriteConfigText(once, v)).toBe(once);
    expect(once.split(REWRITE_SIGNATURE)).toHaveLength(2);
  });

  test("user lines (rewriteConfigUserOption): the file's ones take the users in order, more are appended, extra ones go; with an aclfile all go", () => {
    const text = ['port 7000', 'user bob on', '# c', 'user carol off', 'user dave on', ''].join(
      '\n',
    );
    const now = values({ port: '7000' });
    const lines = (users: readonly string[] | null) =>
      rewriteConfigText(text, now, users).split('\n');
    const two = ['user bob on resetchannels -@all', 'user default on nopass ~* &* +@all'];
    // The third user line goes (blank, then merged with the next blank).
    expect(lines(two).slice(0, 5)).toEqual(['port 7000', two[0], '# c', two[1], '']);
    expect(lines(two).filter((l) => l.startsWith('user '))).toEqual(two);
    const four = [...two, 'user eve on resetchannels -@all', 'user zed off resetchannels -@all'];
    const out = lines(four);
    expect(out.slice(0, 5)).toEqual(['port 7000', four[0], '# c', four[1], four[2]]);
    // The fourth is appended after the parameters, below the signature.
    expect(out.indexOf(four[3]!)).toBeGreaterThan(out.indexOf(REWRITE_SIGNATURE));
    expect(out.at(-2)).toBe(four[3]);
    expect(lines(null).filter((l) => l.startsWith('user '))).toEqual([]);
    expect(lines(null).slice(0, 3)).toEqual(['port 7000', '', '# c']);
  });
});
