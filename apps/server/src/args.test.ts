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

test('a config file and flags, in order, with either spelling of a value', () => {
  expect(
    parseCommandLine(['./strata.conf', '--port', '7000', '--memory=64mb', '--loglevel', 'debug']),
  ).toEqual({
    kind: 'run',
    configFile: './strata.conf',
    flags: [
      { name: 'port', raw: '--port', value: '7000' },
      { name: 'memory', raw: '--memory', value: '64mb' },
      { name: 'log-level', raw: '--loglevel', value: 'debug' },
    ],
  });
  // The config file may come after the flags too.
  expect(parseCommandLine(['--port', '1', 'x.conf'])).toMatchObject({ configFile: 'x.conf' });
});

test('values that look like numbers or are empty are values', () => {
  expect(parseCommandLine(['--port', '-1', '--requirepass', ''])).toMatchObject({
    flags: [
      { name: 'port', value: '-1' },
      { name: 'requirepass', value: '' },
    ],
  });
  expect(parseCommandLine(['--requirepass=--odd--'])).toMatchObject({
    flags: [{ name: 'requirepass', value: '--odd--' }],
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
  expect(error(['--PORT', '1']).arg).toBe('--PORT');
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
});
