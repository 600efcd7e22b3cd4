import { PARAMETERS, type ParameterSpec } from '../../src/commands/server/config-parameters.js';
import type { CompatCase } from './compat-cases.js';

/**
 * CONFIG GET and SET byte for byte as redis-server 7.0 answers them
 * (recorded in config-compat-expected.json), generated from the parameter
 * table so that every parameter is asked: its default by name, then for
 * each kind of value the values Redis refuses (with its reason) and one it
 * takes, read back, then the default again (the servers are shared by the
 * cases). One parameter per CONFIG GET: Redis answers several in its dict's
 * order, which is no order at all.
 *
 * Not here: `port` and `dir` (the two servers' own), and the parameters
 * strata acts on (their CONFIG SET is tested where they act, and setting
 * appendonly or requirepass on Redis would change the shared server).
 */

/** The test servers listen on different ports and run in different directories. */
const OWN_VALUES = new Set(['port', 'dir']);

const get = (name: string) => ['config', 'get', name];
const set = (name: string, value: string) => ['config', 'set', name, value];

/** Values CONFIG SET must refuse, by the parameter's type. */
function refusedValues(p: ParameterSpec): string[] {
  const t = p.type;
  switch (t.kind) {
    case 'bool':
      return ['maybe', '', '1'];
    case 'enum':
      return ['nope', ''];
    case 'string':
      if (t.check === 'hostname') return ['not a host', 'x'.repeat(256)];
      if (t.check === 'proc-title-template') return ['{nope}', '{title', '{title}'];
      return [];
    case 'integer': {
      const out = ['abc', '1.5'];
      if (!t.memory && !t.octal) out.push(' 1', '+1', '01', '9223372036854775808');
      if (t.memory) out.push('1zb', '-1', '1 mb');
      if (t.percent) out.push('-1%', '%', '101%');
      if (t.min > -(1n << 63n)) out.push(String(t.min - 1n));
      if (t.max < 1n << 62n) out.push(String(t.max + 1n));
      return out;
    }
    case 'special':
      switch (t.syntax) {
        case 'save':
          return ['1', '900 x', '0 1', '900 -1'];
        case 'client-output-buffer-limit':
          return ['normal 1 2', 'nope 0 0 0', 'normal x 0 0', 'pubsub 1mb 1mb -1'];
        case 'oom-score-adj-values':
          return ['1 2', '1 2 3 4', '0 0 2001', 'a 0 0'];
        case 'latency-tracking-info-percentiles':
          return ['101', '-1', 'x', '50  99'];
        case 'notify-keyspace-events':
          return ['Q', 'KEAq'];
        default:
          return [];
      }
  }
}

/** A value CONFIG SET takes, other than the default where one exists. */
function takenValues(p: ParameterSpec): string[] {
  const t = p.type;
  switch (t.kind) {
    case 'bool':
      return [p.default === 'yes' ? 'NO' : 'yes'];
    case 'enum':
      return t.flags === undefined ? [t.values[1]!.toUpperCase()] : ['now SAVE', 'default force'];
    case 'string':
      return t.check === 'proc-title-template' ? ['{title} x {port}'] : ['a.b-c'];
    case 'integer': {
      const low = t.min < 0n ? 0n : t.min;
      const out = [String(low)];
      if (t.memory) out.push('1MB', '2k', '3gb');
      if (t.percent) out.push('5%');
      if (t.octal) out.push('755');
      if (t.max <= 1n << 62n) out.push(String(t.max));
      return out;
    }
    case 'special':
      switch (t.syntax) {
        case 'save':
          return ['900 1 300 10', '', ' 3600 1'];
        case 'client-output-buffer-limit':
          return ['pubsub 1mb 512kb 30', 'normal 0 0 0 replica 1gb 0 0'];
        case 'oom-score-adj-values':
          return ['-10 20 +30'];
        case 'latency-tracking-info-percentiles':
          return ['50 99.5 100', ''];
        case 'notify-keyspace-events':
          return ['KEA', 'Elg$'];
        default:
          return [];
      }
  }
}

function parameterCase(kind: string, ps: readonly ParameterSpec[]): CompatCase {
  const commands: string[][] = [];
  for (const p of ps) {
    for (const v of refusedValues(p)) commands.push(set(p.name, v));
    for (const v of takenValues(p)) commands.push(set(p.name, v), get(p.name));
    if (p.alias !== undefined) commands.push(set(p.alias, p.default), get(p.alias));
    commands.push(set(p.name, p.default), get(p.name));
  }
  return { name: `CONFIG SET of ${kind} parameters: refused values, taken ones`, commands };
}

const asked = PARAMETERS.filter((p) => !OWN_VALUES.has(p.name));
/**
 * Parameters a test server can take any value of: those with no effect
 * here, the app's (a bare RespServer stores them), hz,
 * active-expire-effort and dynamic-hz (they only pace the expiry cycle),
 * the lazyfree ones (they only move frees after replies),
 * acl-pubsub-default (it only changes users made later) and
 * rdbcompression (DUMP's form only).
 */
const HARMLESS = new Set([
  'lazyfree-lazy-server-del',
  'lazyfree-lazy-user-del',
  'lazyfree-lazy-user-flush',
  'hz',
  'active-expire-effort',
  'dynamic-hz',
  'acl-pubsub-default',
  'rdbcompression',
]);
/** appendonly is the app's, but turning it on would start an AOF on the shared Redis. */
const harmless = (p: ParameterSpec) =>
  (p.effect !== 'strata' && p.name !== 'appendonly') || HARMLESS.has(p.name);
const settable = asked.filter((p) => p.mutable && p.protected !== true && harmless(p));
const kindOf = (p: ParameterSpec) =>
  p.type.kind === 'integer' && p.type.memory === true ? 'memory' : p.type.kind;

export const CONFIG_COMPAT_CASES: readonly CompatCase[] = [
  {
    name: 'CONFIG GET of every parameter by name, aliases and hidden ones too',
    commands: asked.flatMap((p) => [get(p.name), ...(p.alias === undefined ? [] : [get(p.alias)])]),
  },
  ...['bool', 'enum', 'string', 'integer', 'memory', 'special'].map((kind) =>
    parameterCase(
      kind,
      settable.filter((p) => kindOf(p) === kind),
    ),
  ),
  {
    name: 'CONFIG SET of immutable and protected parameters',
    commands: asked
      .filter((p) => !p.mutable || p.protected === true)
      .flatMap((p) => [set(p.name, p.default), set(p.name.toUpperCase(), 'x')]),
  },
  {
    name: 'CONFIG GET: names in any case, one-match patterns, nothing found',
    commands: [
      get('MaxMemory-Samples'),
      get('maxmemory-p*'),
      get('MAXMEMORY-P*'),
      get('latency-tracking-info-*'),
      get('hash-max-ziplist-e?tries'),
      get('use-exit-*'),
      get('use-exit-on-panic'),
      get('nope'),
      get('nope*'),
      get(''),
      ['config', 'get'],
      ['config', 'get', 'nope', 'MAXMEMORY-POLICY'],
      ['config', 'get', 'maxmemory-policy', 'maxmemory-policy', 'MAXMEMORY-POLICY'],
    ],
  },
  {
    name: 'CONFIG GET answers in RESP3 as a map',
    resp3: true,
    commands: [get('maxmemory-policy'), get('nope'), get('hz')],
  },
  {
    name: 'CONFIG SET: all the pairs or none, the first wrong one named',
    commands: [
      ['config', 'set', 'maxmemory-samples', '7', 'hz', 'x'],
      get('maxmemory-samples'),
      ['config', 'set', 'hz', 'x', 'nope', '1'],
      ['config', 'set', 'maxmemory-samples', '7', 'daemonize', 'yes'],
      ['config', 'set', 'maxmemory-samples', '7', 'dbfilename', 'x'],
      ['config', 'set', 'maxmemory-samples', '7', 'MAXMEMORY-SAMPLES', '8'],
      ['config', 'set', 'hash-max-ziplist-entries', '1', 'hash-max-listpack-entries', '2'],
      get('maxmemory-samples'),
      ['config', 'set', 'maxmemory-samples', '7', 'HZ', '20', 'slowlog-max-len', '3'],
      get('maxmemory-samples'),
      get('hz'),
      get('slowlog-max-len'),
      ['config', 'set', 'maxmemory-samples', '5', 'hz', '10', 'slowlog-max-len', '128'],
      ['config', 'set', 'hz'],
      ['config', 'set', 'hz', '10', 'maxmemory-samples'],
      ['config', 'set'],
      ['config', 'set', 'Nope', '1'],
      ['config', 'set', 'hz', '0'],
      get('hz'),
      ['config', 'set', 'hz', '10'],
    ],
  },
];
