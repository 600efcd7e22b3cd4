import { describe, expect, test } from 'vitest';
import { memoryFiles } from '../test/memory-files.js';
import { DEFAULT_CONFIG } from './config.js';
import {
  applyConfigFile,
  applyConfigText,
  ConfigFileError,
  type ConfigFiles,
  ConfigReadError,
  parseConfigText,
} from './config-file.js';
import { type DirectiveState, directiveState } from './directives.js';

async function load(text: string, files: ConfigFiles = memoryFiles({})): Promise<DirectiveState> {
  const state = directiveState({ ...DEFAULT_CONFIG });
  await applyConfigText(state, text, files);
  return state;
}

async function failure(text: string, files?: ConfigFiles): Promise<ConfigFileError> {
  try {
    await load(text, files);
  } catch (e) {
    if (e instanceof ConfigFileError) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('parseConfigText: sdssplitargs, as Redis splits a line', () => {
  test('skips comments and blank lines, keeps line numbers, unquotes', () => {
    const lines = parseConfigText(
      [
        '# a comment',
        '',
        '   port 7000   ',
        '\t# indented comment',
        'requirepass "a secret \\"pw\\""',
        "dir '/tmp/my data'",
        'bind 127.0.0.1 -::1\r',
        'memory "\\x36\\x34mb"',
        'save ""',
        'requirepass "tab\\there\\nnewline \\\\ back"',
        "requirepass 'it\\'s'",
        'requirepass a"b c"',
        'requirepass "\\xZZ"',
      ].join('\n'),
    );
    expect(lines.map((l) => [l.lineNumber, l.args])).toEqual([
      [3, ['port', '7000']],
      [5, ['requirepass', 'a secret "pw"']],
      [6, ['dir', '/tmp/my data']],
      [7, ['bind', '127.0.0.1', '-::1']],
      [8, ['memory', '64mb']],
      [9, ['save', '']],
      [10, ['requirepass', 'tab\there\nnewline \\ back']],
      [11, ['requirepass', "it's"]],
      [12, ['requirepass', 'ab c']],
      [13, ['requirepass', 'xZZ']],
    ]);
    expect(lines[0]!.text).toBe('port 7000');
    expect(lines[3]!.text).toBe('bind 127.0.0.1 -::1');
  });

  test.each([
    'requirepass "open',
    "requirepass 'open",
    'requirepass "closed"right-after',
    "dir 'a'b",
  ])('unbalanced quotes: %s', async (line) => {
    const e = await failure(`port 7000\n${line}`);
    expect([e.lineNumber, e.line, e.reason]).toEqual([
      2,
      line,
      'Unbalanced quotes in configuration line',
    ]);
  });
});

describe('include', () => {
  test('reads the file where the directive stands, relative to the working directory', async () => {
    const files = memoryFiles({
      'conf/base.conf': 'port 7000\nmaxclients 5\n',
      'conf/local.conf': 'maxclients 6\n',
    });
    const s = await load('port 1\ninclude conf/base.conf\ninclude conf/local.conf\n', files);
    expect(s.config).toMatchObject({ port: 7000, maxclients: 6 });
    const later = await load('include conf/base.conf\nport 1\n', files);
    expect(later.config.port).toBe(1);
  });

  test('wildcards read every match in order; no match is nothing, as Redis', async () => {
    const files = memoryFiles({
      '/etc/strata/conf.d/20-port.conf': 'port 7002\n',
      '/etc/strata/conf.d/10-port.conf': 'port 7001\n',
      '/etc/strata/conf.d/.hidden.conf': 'port 1\n',
      '/etc/strata/conf.d/notes.txt': 'bogus\n',
    });
    const s = await load('include /etc/strata/conf.d/*.conf\n', files);
    expect(s.config.port).toBe(7002);
    const q = await load('include /etc/strata/conf.d/1?-port.[c]onf\n', files);
    expect(q.config.port).toBe(7001);
    const none = await load('include /etc/strata/empty.d/*.conf\nport 9\n', files);
    expect(none.config.port).toBe(9);
  });

  test('an error in an included file names its line; a missing file fails as Redis', async () => {
    const files = memoryFiles({ 'inc.conf': '# included\nport 70000\n' });
    const e = await failure('port 1\ninclude inc.conf\n', files);
    expect([e.lineNumber, e.line, e.reason]).toEqual([
      2,
      'port 70000',
      'argument must be between 0 and 65535 inclusive',
    ]);
    await expect(load('include missing.conf', files)).rejects.toThrow(
      new ConfigReadError('missing.conf', 'No such file or directory'),
    );
  });

  test('a file that includes itself is refused at the include', async () => {
    const files = memoryFiles({
      'a.conf': 'port 1\ninclude b.conf\n',
      'b.conf': 'include a.conf\n',
    });
    const state = directiveState({ ...DEFAULT_CONFIG });
    await expect(applyConfigFile(state, 'a.conf', files)).rejects.toThrow(
      new ConfigFileError(1, 'include a.conf', "include cycle: 'a.conf' is being read already"),
    );
  });

  test('include takes one path', async () => {
    expect((await failure('include a b')).reason).toBe(
      'Bad directive or wrong number of arguments',
    );
  });
});
