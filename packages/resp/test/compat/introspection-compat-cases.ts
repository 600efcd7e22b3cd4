import type { DiagnosticsCase } from './diagnostics-compat-cases.js';
import { maskBulks } from './diagnostics-masks.js';

/**
 * COMMAND GETKEYS/GETKEYSANDFLAGS, OBJECT FREQ/IDLETIME refusals, LOLWUT
 * and INFO latencystats against Redis 7.0 (recorded in
 * `introspection-compat-expected.json`). What is random (LOLWUT's
 * disordered squares, its skyline) or timed (latency percentiles) is
 * compared by shape (`mask`, applied to both servers' transcripts alike).
 * The cases share one server: each puts back the defaults it changed.
 */

const config = (name: string, value: string) => ['config', 'set', name, value];

/**
 * Every bulk or verbatim string's content rewritten by `edit`, its length
 * then `?` (maskBulks, RESP3's `=` too).
 */
function maskStrings(text: string, edit: (content: string) => string): string {
  let out = '';
  let at = 0;
  const header = /[$=](\d+)\r\n/g;
  for (let m = header.exec(text); m !== null; m = header.exec(text)) {
    if (m.index < at) continue;
    const start = m.index + m[0].length;
    const end = start + Number(m[1]);
    out += `${text.slice(at, m.index)}${m[0][0]}?\r\n${edit(text.slice(start, end))}`;
    at = end;
    header.lastIndex = end;
  }
  return out + text.slice(at);
}

/**
 * LOLWUT prints the version the server reports (HELLO, INFO): strata's
 * SERVER_VERSION, not redis-server's own 7.0.15. Only that is hidden here.
 */
const maskVersion = (t: string) =>
  maskStrings(t, (s) => s.replace(/Redis ver\. [0-9.]+\n/, 'Redis ver. <v>\n'));

/** One skyline cell: ESC[<colors>m, a space, ESC[0m. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the ANSI escapes LOLWUT 6 prints
const GRAY_CELL = /\x1b\[0;\d+;\d+m \x1b\[0m/g;

/** Braille cells (UTF-8 as latin1: E2 A0..A3 xx) and ANSI gray cells, each to one letter. */
const maskArt = (t: string) =>
  maskStrings(t, (s) =>
    s
      .replace(/Redis ver\. [0-9.]+\n/, 'Redis ver. <v>\n')
      .replace(/\xe2[\xa0-\xa3][\x80-\xbf]/g, 'b')
      .replace(GRAY_CELL, 'c'),
  );

/** INFO latencystats: percentile values hidden, lines sorted (Redis lists them in its dict's order). */
function maskLatencystats(text: string): string {
  return maskBulks(text, '# Latencystats\r\n', (content) => {
    const lines = content.split('\r\n');
    const stats = lines
      .slice(1)
      .filter((l) => l !== '')
      .map((l) => l.replace(/=\d+\.\d{3}/g, '=<us>'))
      .sort();
    return `${lines[0]}\r\n${stats.map((l) => `${l}\r\n`).join('')}`;
  });
}

/** INFO's section titles only, strata's own `# Storage` left out. */
function maskSectionTitles(text: string): string {
  return maskBulks(text, '# Server\r\n', (content) =>
    content
      .split('\r\n')
      .filter((l) => l.startsWith('# ') && l !== '# Storage')
      .join(','),
  );
}

export const INTROSPECTION_COMPAT_CASES: readonly DiagnosticsCase[] = [
  {
    name: 'COMMAND GETKEYSANDFLAGS: keys and their key-spec flags',
    commands: [
      ['command', 'getkeysandflags', 'set', 'a', 'b'],
      ['command', 'getkeysandflags', 'set', 'a', 'b', 'GET'],
      ['command', 'getkeysandflags', 'set', 'a', 'b', 'ex', '10', 'get'],
      ['command', 'getkeysandflags', 'mset', 'a', '1', 'b', '2'],
      ['command', 'getkeysandflags', 'get', 'a'],
      ['command', 'getkeysandflags', 'del', 'a', 'b', 'c'],
      ['command', 'getkeysandflags', 'sort', 'a', 'store', 'b'],
      ['command', 'getkeysandflags', 'sort', 'a', 'by', 'x', 'limit', '0', '1'],
      ['command', 'getkeysandflags', 'eval', 'return 1', '2', 'a', 'b', 'c'],
      ['command', 'getkeysandflags', 'eval', 'return 1', '0'],
      ['command', 'getkeysandflags', 'eval', 'return 1', '5', 'a'],
      ['command', 'getkeysandflags', 'fcall', 'f', '1', 'k'],
      ['command', 'getkeysandflags', 'xread', 'count', '1', 'streams', 'a', 'b', '0', '0'],
      ['command', 'getkeysandflags', 'pfmerge', 'd', 's1', 's2'],
      ['command', 'getkeysandflags', 'object', 'encoding', 'k'],
    ],
  },
  {
    name: 'COMMAND GETKEYS and GETKEYSANDFLAGS refusals, in Redis order',
    commands: [
      ['command', 'getkeysandflags'],
      ['command', 'getkeysandflags', 'get'],
      ['command', 'getkeysandflags', 'get', 'a', 'b'],
      ['command', 'getkeysandflags', 'ping', 'x'],
      ['command', 'getkeysandflags', 'foo', 'x'],
      ['command', 'getkeysandflags', 'client', 'list'],
      ['command', 'getkeysandflags', 'client', 'foo'],
      ['command', 'getkeysandflags', 'object', 'freq'],
      ['command', 'getkeysandflags', 'xread', 'count', '1', 'streams'],
      ['command', 'getkeys', 'get'],
      ['command', 'getkeys', 'set', 'a'],
      ['command', 'getkeys', 'ping', 'x'],
      ['command', 'getkeys', 'client', 'foo'],
      ['command', 'getkeys', 'client', 'list'],
      ['command', 'getkeys', 'eval', 'return 1', '2', 'a', 'b'],
      ['command', 'getkeys', 'eval', 'return 1', '0'],
      ['command', 'getkeys', 'xread', 'count', '1', 'streams'],
      ['command', 'info', 'command|getkeys', 'command|getkeysandflags'],
      ['command', 'help'],
    ],
  },
  {
    name: 'COMMAND GETKEYSANDFLAGS in RESP3: the flags are a set',
    resp3: true,
    commands: [
      ['command', 'getkeysandflags', 'set', 'a', 'b', 'get'],
      ['command', 'getkeysandflags', 'mset', 'a', '1', 'b', '2'],
      ['command', 'getkeysandflags', 'eval', 'return 1', '0'],
    ],
  },
  {
    name: 'OBJECT FREQ and IDLETIME refused by maxmemory-policy, a missing key null',
    commands: [
      config('maxmemory-policy', 'noeviction'),
      ['set', 'ob:k', 'v'],
      ['rpush', 'ob:l', 'a'],
      ['object', 'freq', 'ob:k'],
      ['object', 'freq', 'ob:l'],
      ['object', 'freq', 'ob:none'],
      ['object', 'idletime', 'ob:none'],
      config('maxmemory-policy', 'allkeys-lfu'),
      ['object', 'idletime', 'ob:k'],
      ['object', 'idletime', 'ob:l'],
      ['object', 'idletime', 'ob:none'],
      ['object', 'freq', 'ob:none'],
      config('maxmemory-policy', 'volatile-lfu'),
      ['object', 'idletime', 'ob:k'],
      config('maxmemory-policy', 'allkeys-lru'),
      ['object', 'freq', 'ob:k'],
      config('maxmemory-policy', 'noeviction'),
      ['object', 'freq'],
      ['object', 'idletime', 'a', 'b'],
      ['object', 'help'],
      ['command', 'info', 'object|encoding', 'object|freq', 'object|idletime', 'object|refcount'],
      ['command', 'info', 'pfmerge'],
      ['del', 'ob:k', 'ob:l'],
    ],
  },
  {
    name: 'LOLWUT: the version line, and VERSION 5 without disorder byte for byte',
    mask: maskVersion,
    commands: [
      ['lolwut'],
      ['LOLWUT', 'foo', 'bar'],
      ['lolwut', 'version'],
      ['lolwut', 'version', '7'],
      ['lolwut', 'version', '4'],
      ['lolwut', 'version', '50'],
      ['lolwut', 'version', '-1'],
      ['lolwut', 'version', 'x'],
      ['lolwut', 'version', '5', 'x'],
      ['lolwut', 'version', '6', '1', 'y'],
      ['lolwut', 'VERSION', '5', '1', '1', '1'],
      ['lolwut', 'version', '5', '0', '0', '0'],
      ['lolwut', 'version', '5', '66', '8', '2'],
      ['lolwut', 'version', '5', '10', '3', '1'],
      ['lolwut', 'version', '5', '2000', '300', '1'],
      ['lolwut', 'version', '5', '33', '4', '-5'],
      ['lolwut', 'version', '4294967301', '7', '2', '2'],
      ['command', 'info', 'lolwut'],
    ],
  },
  {
    name: 'LOLWUT: the disordered pictures by shape',
    mask: maskArt,
    commands: [
      ['lolwut', 'version', '5'],
      ['lolwut', 'version', '5', '40', '5', '6'],
      ['lolwut', 'version', '6'],
      ['lolwut', 'version', '6', '12', '5'],
      ['lolwut', 'version', '6', '1', '1'],
    ],
  },
  {
    name: 'LOLWUT in RESP3: a verbatim string',
    resp3: true,
    mask: maskVersion,
    commands: [['lolwut'], ['lolwut', 'version', '5', '3', '2', '2']],
  },
  {
    name: 'INFO latencystats: per-command percentiles as configured',
    mask: (t) => maskSectionTitles(maskLatencystats(t)),
    commands: [
      // Refused as Redis refuses them (these left CONFIG's generated cases when the parameter got an effect).
      config('latency-tracking-info-percentiles', '101'),
      config('latency-tracking-info-percentiles', '-1'),
      config('latency-tracking-info-percentiles', 'x'),
      config('latency-tracking-info-percentiles', '50  99'),
      config('latency-tracking-info-percentiles', '50 99.5 100'),
      ['config', 'get', 'latency-tracking-info-percentiles'],
      ['config', 'resetstat'],
      ['set', 'lt:a', '1'],
      ['get', 'lt:a'],
      ['get', 'lt:a'],
      ['client', 'getname'],
      ['info', 'latencystats'],
      config('latency-tracking-info-percentiles', '0 50 100 99.99999 12.5'),
      ['config', 'get', 'latency-tracking-info-percentiles'],
      ['info', 'latencystats'],
      config('latency-tracking-info-percentiles', ''),
      ['info', 'latencystats'],
      config('latency-tracking-info-percentiles', '50 99 99.9'),
      config('latency-tracking', 'no'),
      ['info', 'latencystats'],
      config('latency-tracking', 'yes'),
      ['config', 'resetstat'],
      ['info', 'latencystats'],
      ['info', 'all'],
      ['info', 'everything'],
      ['info', 'default'],
      ['del', 'lt:a'],
    ],
  },
];
