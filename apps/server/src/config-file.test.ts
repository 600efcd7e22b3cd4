import { describe, expect, test } from 'vitest';
import { DEFAULT_CONFIG, type ServerConfig } from './config.js';
import { applyConfigText, ConfigFileError, parseConfigText } from './config-file.js';

function load(text: string): ServerConfig {
  const config = { ...DEFAULT_CONFIG };
  applyConfigText(config, text);
  return config;
}

function failure(text: string): ConfigFileError {
  try {
    load(text);
  } catch (e) {
    if (e instanceof ConfigFileError) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('parseConfigText', () => {
  test('skips comments and blank lines, keeps line numbers, unquotes', () => {
    const lines = parseConfigText(
      [
        '# a comment',
        '',
        '   port 7000   ',
        '\t# indented comment',
        'requirepass "a secret \\"pw\\""',
        "dir '/tmp/my data'",
        'bind 127.0.0.1\r',
        'memory "\\x36\\x34mb"',
      ].join('\n'),
    );
    expect(lines).toEqual([
      { lineNumber: 3, text: 'port 7000', args: ['port', '7000'] },
      {
        lineNumber: 5,
        text: 'requirepass "a secret \\"pw\\""',
        args: ['requirepass', 'a secret "pw"'],
      },
      { lineNumber: 6, text: "dir '/tmp/my data'", args: ['dir', '/tmp/my data'] },
      { lineNumber: 7, text: 'bind 127.0.0.1', args: ['bind', '127.0.0.1'] },
      { lineNumber: 8, text: 'memory "\\x36\\x34mb"', args: ['memory', '64mb'] },
    ]);
  });

  test('unbalanced quotes are an error on their line', () => {
    const e = failure('port 7000\nrequirepass "open');
    expect(e.lineNumber).toBe(2);
    expect(e.line).toBe('requirepass "open');
    expect(e.reason).toBe('Unbalanced quotes in configuration line');
  });
});

describe('applyConfigText', () => {
  test('sets every setting, later lines win, names are case-insensitive', () => {
    const c = load(`
port 7000
PORT 7001
bind 0.0.0.0
dir /var/lib/strata
memory 128mb
page-size 64kb
segment-size 256MB
index-size 1mb
mutable-fraction 0.5
databases 4
requirepass "s3cret"
maxclients 50
checkpoint-interval 60
loglevel warning
appendonly yes
appendfsync always
appendfilename strata.aof
appenddirname aofdir
compaction-threshold 1gb
notify-keyspace-events KEx
`);
    expect(c).toEqual({
      port: 7001,
      bind: '0.0.0.0',
      dir: '/var/lib/strata',
      memory: 128 * 1024 ** 2,
      pageSize: 64 * 1024,
      segmentSize: 256 * 1024 ** 2,
      indexSize: 1024 ** 2,
      mutableFraction: 0.5,
      databases: 4,
      requirepass: 's3cret',
      maxclients: 50,
      checkpointInterval: 60,
      logLevel: 'warning',
      appendonly: true,
      appendfsync: 'always',
      appendfilename: 'strata.aof',
      appenddirname: 'aofdir',
      compactionThreshold: 1024 ** 3,
      notifyKeyspaceEvents: 'xKE',
    });
  });

  test('an empty requirepass means none; bind * means every interface', () => {
    const c = load('requirepass x\nrequirepass ""\nbind *');
    expect(c.requirepass).toBeNull();
    expect(c.bind).toBe('0.0.0.0');
  });

  test.each([
    ['port abc', "argument couldn't be parsed into an integer"],
    ['port 70000', 'argument must be between 0 and 65535 inclusive'],
    ['port -1', 'argument must be between 0 and 65535 inclusive'],
    ['port 1.5', "argument couldn't be parsed into an integer"],
    ['port', 'wrong number of arguments: port takes one'],
    ['port 1 2', 'wrong number of arguments: port takes one'],
    ['bind 127.0.0.1 ::1', 'strata-server listens on one address: bind takes one argument'],
    ['memory lots', 'argument must be a memory value'],
    ['memory 1.5gb', 'argument must be a memory value'],
    ['memory 12', 'argument must be between 1kb and'],
    ['page-size 3000', 'argument must be a power of two'],
    ['page-size 256', 'argument must be between 512 and 1gb inclusive'],
    ['mutable-fraction 1.5', 'argument must be a number between 0 and 1'],
    ['mutable-fraction -0.1', 'argument must be a number between 0 and 1'],
    ['mutable-fraction half', 'argument must be a number between 0 and 1'],
    ['databases 0', 'Invalid number of databases'],
    ['maxclients 0', 'argument must be between 1 and 1000000 inclusive'],
    ['log-level loud', 'argument(s) must be one of the following: debug, verbose, notice, warning'],
    ['dir ""', 'argument must not be empty'],
    ['maxmemory 1gb', 'Bad directive or wrong number of arguments'],
    ['appendonly maybe', "argument must be 'yes' or 'no'"],
    ['appendfsync sometimes', 'argument(s) must be one of the following: always, everysec, no'],
    ['appendfilename ../x.aof', "appendfilename can't be a path, just a filename"],
  ])('%s: %s', (line, reason) => {
    const e = failure(`# settings\n\n${line}\n`);
    expect(e.lineNumber).toBe(3);
    expect(e.line).toBe(line);
    expect(e.reason).toContain(reason);
  });
});
