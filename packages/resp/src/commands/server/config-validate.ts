import { DEFAULT_OUTPUT_LIMITS } from '../../server/server-state.js';
import { parseNotifyFlags } from '../pubsub/keyspace-events.js';
import { parseOutputLimits } from './config-output-limits.js';
import type { NumericType, ParameterSpec, SpecialSyntax } from './config-parameters.js';

/**
 * CONFIG SET's value checks, type by type, with Redis 7.0's reasons (the
 * text after `CONFIG SET failed (possibly related to argument '...') - `).
 * A valid value comes back as CONFIG GET will print it.
 */
export type Checked =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly reason: string };

const ok = (text: string): Checked => ({ ok: true, text });
const fail = (reason: string): Checked => ({ ok: false, reason });

const TWO_64 = 1n << 64n;
const TWO_63 = 1n << 63n;
/** Redis writes its reasons into a 256-byte buffer (LOADBUF_SIZE): longer enum lists are cut. */
const LOADBUF = 255;

export function checkValue(spec: ParameterSpec, value: string): Checked {
  const t = spec.type;
  switch (t.kind) {
    case 'bool': {
      const lower = value.toLowerCase();
      if (lower !== 'yes' && lower !== 'no') return fail("argument must be 'yes' or 'no'");
      if (lower === 'yes' && t.refuseYes !== undefined) return fail(t.refuseYes);
      return ok(lower);
    }
    case 'integer':
      return checkNumber(t, value);
    case 'enum': {
      const refused = fail(
        `argument(s) must be one of the following: ${t.values.join(', ')}`.slice(0, LOADBUF),
      );
      if (t.flags !== undefined) {
        // Redis splits on each space, so an empty word (two spaces, or none at all) is refused.
        const set = new Set(value.toLowerCase().split(' '));
        for (const w of set) if (!t.values.includes(w)) return refused;
        const [a, b, reason] = t.flags.exclusive ?? [];
        if (a !== undefined && set.has(a) && set.has(b!)) return fail(reason!);
        const on = t.values.slice(1).filter((v) => set.has(v));
        return ok(on.length === 0 ? t.values[0]! : on.join(' '));
      }
      const lower = value.toLowerCase();
      if (!t.values.includes(lower)) return refused;
      return ok(t.sameAs?.[lower] ?? lower);
    }
    case 'string':
      if (t.check === 'hostname') return checkHostname(value);
      if (t.check === 'proc-title-template') return checkProcTitle(value);
      // Redis's isValidDBfilename.
      if (t.check === 'filename' && value.includes('/')) {
        return fail(`${spec.name} can't be a path, just a filename`);
      }
      return ok(value);
    case 'special':
      return checkSpecial(t.syntax, value);
  }
}

/** Redis's string2ll: an optional `-`, no `+`, no leading zeros, no spaces, 64-bit. */
export function string2ll(text: string): bigint | null {
  if (!/^(0|-?[1-9][0-9]*)$/.test(text)) return null;
  const n = BigInt(text);
  return n >= -TWO_63 && n < TWO_63 ? n : null;
}

/**
 * Redis's memtoull: digits (none is 0), then an optional unit (b, k, kb,
 * m, mb, g, gb, any case). Digits past 2^64-1 saturate and the product
 * wraps, as strtoull and C's unsigned multiply do.
 */
export function memtoull(text: string): bigint | null {
  const m = /^([0-9]*)(.*)$/s.exec(text)!;
  const unit = MEMORY_UNITS[m[2]!.toLowerCase()];
  if (unit === undefined) return null;
  let n = m[1] === '' ? 0n : BigInt(m[1]!);
  if (n >= TWO_64) n = TWO_64 - 1n;
  return (n * unit) % TWO_64;
}

const MEMORY_UNITS: Readonly<Record<string, bigint>> = {
  '': 1n,
  b: 1n,
  k: 1000n,
  kb: 1024n,
  m: 1000n ** 2n,
  mb: 1024n ** 2n,
  g: 1000n ** 3n,
  gb: 1024n ** 3n,
};

/** numericParseString, numericBoundaryCheck and numericConfigGet of config.c. */
function checkNumber(t: NumericType, value: string): Checked {
  let n: bigint | null = null;
  if (t.memory) {
    const bytes = memtoull(value);
    // Stored in a long long: past 2^63 it reads back negative.
    if (bytes !== null) n = bytes >= TWO_63 ? bytes - TWO_64 : bytes;
  }
  if (n === null && t.percent && value.length > 1 && value.endsWith('%')) {
    const p = string2ll(value.slice(0, -1));
    if (p !== null && p >= 0n) n = -p;
  }
  if (t.octal) n = strtollOctal(value);
  if (n === null && !t.memory && !t.percent && !t.octal) n = string2ll(value);
  if (n === null) {
    if (t.memory && t.percent) return fail('argument must be a memory or percent value');
    if (t.memory) return fail('argument must be a memory value');
    if (t.octal) return fail("argument couldn't be parsed as an octal number");
    return fail("argument couldn't be parsed into an integer");
  }
  if (t.unsigned) {
    const u = n < 0n ? n + TWO_64 : n;
    if (u < t.min || u > t.max)
      return fail(`argument must be between ${t.min} and ${t.max} inclusive`);
  } else if (t.percent && n < 0n) {
    if (n < t.min) return fail(`percentage argument must be less or equal to ${-t.min}`);
  } else if (n < t.min || n > t.max) {
    return fail(`argument must be between ${t.min} and ${t.max} inclusive`);
  }
  if (t.clamp !== undefined) {
    const [lo, hi] = t.clamp;
    n = n < lo ? lo : n > hi ? hi : n;
  }
  if (t.percent && n < 0n) return ok(`${-n}%`);
  if (t.octal) return ok(n.toString(8));
  if (t.memory && n < 0n) return ok(String(n + TWO_64));
  return ok(String(n));
}

function checkHostname(value: string): Checked {
  if (value.length >= 256) return fail('Hostnames must be less than 256 characters');
  if (!/^[A-Za-z0-9.-]*$/.test(value)) {
    return fail('Hostnames may only contain alphanumeric characters, hyphens or dots');
  }
  return ok(value);
}

/**
 * Redis expands the template to check it: unknown `{variables}` and an
 * open `{` are refused, so is one that expands to nothing (`{title}` is
 * empty when checked; the address and ports never are).
 */
function checkProcTitle(value: string): Checked {
  const bad = fail('template format is invalid or contains unknown variables');
  const known = new Map([
    ['title', ''],
    ['listen-addr', 'x'],
    ['server-mode', ''],
    ['port', 'x'],
    ['tls-port', 'x'],
    ['unixsocket', ''],
    ['config-file', ''],
  ]);
  let expanded = '';
  for (let i = 0; i < value.length; i++) {
    if (value[i] !== '{') {
      expanded += value[i];
      continue;
    }
    const end = value.indexOf('}', i);
    if (end === -1) return bad;
    const v = known.get(value.slice(i + 1, end));
    if (v === undefined) return bad;
    expanded += v;
    i = end;
  }
  return expanded.trim() === '' ? bad : ok(value);
}

/** strtoll(value, &end, 8) as Redis's OCTAL_CONFIG checks it (no ERANGE, `*end == '\0'`). */
function strtollOctal(text: string): bigint | null {
  if (text === '') return 0n;
  const m = /^[ \t\n\v\f\r]*([+-]?)([0-7]+)$/.exec(text);
  if (m === null) return null;
  const n = BigInt(`0o${m[2]}`) * (m[1] === '-' ? -1n : 1n);
  return n >= -TWO_63 && n < TWO_63 ? n : null;
}

/** C's strtoll as Redis checks it (`*eptr == '\0'`): leading spaces and a sign, or nothing at all (0). */
function strtollWhole(text: string): bigint | null {
  if (text === '') return 0n;
  const m = /^[ \t\n\v\f\r]*([+-]?[0-9]+)$/.exec(text);
  return m === null ? null : BigInt(m[1]!);
}

/** Multi-argument values are split on each single space, as sdssplitlen does. */
const words = (value: string) => value.split(' ');

function checkSpecial(syntax: SpecialSyntax, value: string): Checked {
  switch (syntax) {
    case 'save': {
      const w = value === '' ? [] : words(value);
      if (w.length % 2 !== 0) return fail('Invalid save parameters');
      const out: string[] = [];
      for (let i = 0; i < w.length; i++) {
        const n = strtollWhole(w[i]!);
        if (n === null || n < (i % 2 === 0 ? 1n : 0n)) return fail('Invalid save parameters');
        out.push(String(n));
      }
      return ok(out.join(' '));
    }
    case 'oom-score-adj-values': {
      const w = words(value);
      if (w.length !== 3) return fail('wrong number of arguments');
      const out: string[] = [];
      for (const x of w) {
        const n = strtollWhole(x);
        if (n === null || n < -2000n || n > 2000n) {
          return fail('Invalid oom-score-adj-values, elements must be between -2000 and 2000.');
        }
        out.push(String(n));
      }
      return ok(out.join(' '));
    }
    case 'latency-tracking-info-percentiles': {
      const w = value === '' ? [] : words(value);
      const out: string[] = [];
      for (const x of w) {
        // string2d: a whole strtod number, no leading space, not NaN.
        const n = /^\s/.test(x) || x === '' ? Number.NaN : Number(x);
        if (Number.isNaN(n)) return fail('Invalid latency-tracking-info-percentiles parameters');
        if (n > 100 || n < 0) {
          return fail(
            'latency-tracking-info-percentiles parameters should sit between [0.0,100.0]',
          );
        }
        // "%f", trailing zeros trimmed.
        out.push(n.toFixed(6).replace(/\.?0+$/, ''));
      }
      return ok(out.join(' '));
    }
    case 'bind': {
      const w = value === '' ? [] : words(value);
      if (w.length > 16) return fail('Too many bind addresses specified.');
      return ok(w.join(' '));
    }
    case 'client-output-buffer-limit': {
      const r = parseOutputLimits(value, DEFAULT_OUTPUT_LIMITS);
      return 'reason' in r ? fail(r.reason) : ok(value);
    }
    case 'notify-keyspace-events':
      return parseNotifyFlags(value) === null
        ? fail("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")
        : ok(value);
    // dir's is a live check (config.ts's binding); replicaof is immutable.
    case 'dir':
    case 'replicaof':
      return ok(value);
  }
}
