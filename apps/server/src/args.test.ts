import { expect, test } from 'vitest';
import { ArgumentError, parseCommandLine } from './args.js';

function error(argv: string[]): ArgumentError {
  try {
    parseCommandLine(argv);
  } catch (e) {
    if (e instanceof ArgumentError) return e;
    throw e;
  }
  throw new Error('no error');
}

test('no arguments: defaults only', () => {
  expect(parseCommandLine([])).toEqual({ kind: 'run', configFile: null, flags: [] });
});

test('a config file first, then directives, in order, with either spelling of a value', () => {
  expect(
    parseCommandLine(['./redis.conf', '--port', '7000', '--memory=64mb', '--LogLevel', 'debug']),
  ).toEqual({
    kind: 'run',
    configFile: './redis.conf',
    flags: [
      { name: 'port', raw: '--port', values: ['7000'] },
      { name: 'memory', raw: '--memory', values: ['64mb'] },
      { name: 'loglevel', raw: '--LogLevel', values: ['debug'] },
    ],
  });
});

test('as redis-server: a directive takes every argument up to the next --', () => {
  expect(
    parseCommandLine(['--bind', '127.0.0.1', '-::1', '--save', '3600', '1', '300', '100']),
  ).toMatchObject({
    flags: [
      { name: 'bind', values: ['127.0.0.1', '-::1'] },
      { name: 'save', values: ['3600', '1', '300', '100'] },
    ],
  });
  // `--save` with nothing after it is `save ""`; `--bind` alone is no address.
  expect(parseCommandLine(['--save', '--port', '1', '--save'])).toMatchObject({
    flags: [
      { name: 'save', values: [''] },
      { name: 'port', values: ['1'] },
      { name: 'save', values: [''] },
    ],
  });
  expect(parseCommandLine(['--bind'])).toMatchObject({ flags: [{ name: 'bind', values: [] }] });
  // Any Redis directive, not only the ones --help lists.
  expect(parseCommandLine(['--protected-mode', 'no', '--hz', '20'])).toMatchObject({
    flags: [
      { name: 'protected-mode', values: ['no'] },
      { name: 'hz', values: ['20'] },
    ],
  });
});

test('values that look like numbers or are empty are values', () => {
  expect(parseCommandLine(['--port', '-1', '--requirepass', ''])).toMatchObject({
    flags: [
      { name: 'port', values: ['-1'] },
      { name: 'requirepass', values: [''] },
    ],
  });
  expect(parseCommandLine(['--requirepass=--odd--'])).toMatchObject({
    flags: [{ name: 'requirepass', values: ['--odd--'] }],
  });
});

test('--help and --version win over everything else', () => {
  expect(parseCommandLine(['--port', 'x', '--help'])).toEqual({ kind: 'help' });
  expect(parseCommandLine(['-h'])).toEqual({ kind: 'help' });
  expect(parseCommandLine(['--version'])).toEqual({ kind: 'version' });
  expect(parseCommandLine(['-v', '--bogus'])).toEqual({ kind: 'version' });
});

test('mistakes name the argument', () => {
  expect(error(['--bogus', '1']).message).toBe(
    "Invalid argument '--bogus': unknown option (see strata-server --help)",
  );
  expect(error(['-p', '1']).arg).toBe('-p');
  expect(error(['--port']).message).toBe(
    "Invalid argument '--port': a value is required (--port <port>)",
  );
  expect(error(['--port', '--bind', 'x']).message).toBe(
    "Invalid argument '--port': a value is required (--port <port>)",
  );
  expect(error(['a.conf', 'b.conf']).message).toBe(
    "Invalid argument 'b.conf': one config file at most (already given: 'a.conf')",
  );
  expect(error(['--port=1', 'x.conf']).message).toBe(
    "Invalid argument 'x.conf': the config file comes first (strata-server <config-file> [options])",
  );
});
