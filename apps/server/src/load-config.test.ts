import { describe, expect, test } from 'vitest';
import { memoryFiles } from '../test/memory-files.js';
import type { Flag } from './args.js';
import { DEFAULT_CONFIG } from './config.js';
import { FatalConfigError, loadConfig } from './load-config.js';
import { VERSION } from './version.js';

const flag = (name: string, ...values: string[]): Flag => ({ name, raw: `--${name}`, values });

async function fatal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof FatalConfigError) return e.message;
    throw e;
  }
  throw new Error('no error');
}

describe('loadConfig', () => {
  test('defaults alone', async () => {
    const r = await loadConfig({ configFile: null, flags: [] });
    expect(r).toEqual({
      config: DEFAULT_CONFIG,
      notes: [],
      configFile: null,
      parameters: [],
      unused: [],
      users: [],
    });
  });

  test('flags override the config file, whatever their order', async () => {
    const files = memoryFiles({ 'strata.conf': 'port 7000\nmemory 128mb\nmaxclients 5\n' });
    const r = await loadConfig(
      { configFile: 'strata.conf', flags: [flag('port', '7001'), flag('maxclients', '9')] },
      files,
    );
    expect(r.config).toMatchObject({ port: 7001, memory: 128 * 1024 ** 2, maxclients: 9 });
    expect(r.configFile).toMatch(/\/strata\.conf$/);
  });

  test('flags are directives: several values, save adding up as Redis, include', async () => {
    const files = memoryFiles({
      'a.conf': 'save 3600 1\nhz 20\n',
      'more.conf': 'tcp-backlog 100\n',
    });
    const r = await loadConfig(
      {
        configFile: 'a.conf',
        flags: [
          flag('bind', '127.0.0.1', '-::1'),
          flag('save', '60', '10'),
          flag('include', 'more.conf'),
        ],
      },
      files,
    );
    expect(r.config.bind).toEqual(['127.0.0.1', '-::1']);
    expect(r.config.save).toEqual([
      { seconds: 3600, changes: 1 },
      { seconds: 60, changes: 10 },
    ]);
    // hz and tcp-backlog are acted on: nothing of these is unused.
    expect(r.unused).toEqual([]);
  });

  test('sizes are rounded to what the log can use, with a note', async () => {
    const r = await loadConfig({
      configFile: null,
      flags: [flag('memory', '64m'), flag('segment-size', '1g'), flag('index-size', '100kb')],
    });
    expect(r.config).toMatchObject({
      memory: 61 * 1024 ** 2,
      segmentSize: 953 * 1024 ** 2,
      indexSize: 64 * 1024,
    });
    expect(r.notes).toEqual([
      'memory 64m rounded down to 61mb (whole pages of 1mb)',
      'segment-size 1g rounded down to 953mb (whole pages of 1mb)',
      'index-size 100kb rounded down to 64kb (a power of two of 64-byte buckets)',
    ]);
  });

  test('daemonize with no pidfile writes the default one, as Redis', async () => {
    const r = await loadConfig({ configFile: null, flags: [flag('daemonize', 'yes')] });
    expect(r.config.pidfile).toBe('/var/run/strata-server.pid');
  });

  test('a bad config file line: Redis-style report with line and reason', async () => {
    const files = memoryFiles({ 'bad.conf': '# strata\nport 7000\n\nmemory lots\n' });
    expect(await fatal(loadConfig({ configFile: 'bad.conf', flags: [] }, files))).toBe(
      [
        `*** FATAL CONFIG FILE ERROR (Strata ${VERSION}) ***`,
        'Reading the configuration file, at line 4',
        ">>> 'memory lots'",
        'argument must be a memory value',
      ].join('\n'),
    );
  });

  test('a missing config file, or a missing include', async () => {
    expect(await fatal(loadConfig({ configFile: 'nope.conf', flags: [] }, memoryFiles({})))).toBe(
      "Fatal error, can't open config file 'nope.conf': No such file or directory",
    );
    const files = memoryFiles({ 'a.conf': 'include gone.conf\n' });
    expect(await fatal(loadConfig({ configFile: 'a.conf', flags: [] }, files))).toBe(
      "Fatal error, can't open config file 'gone.conf': No such file or directory",
    );
  });

  test('a log file that cannot be opened, as Redis: after every line is read', async () => {
    expect(
      await fatal(
        loadConfig({ configFile: null, flags: [flag('logfile', '/nonexistent/dir/strata.log')] }),
      ),
    ).toBe(
      [
        `*** FATAL CONFIG FILE ERROR (Strata ${VERSION}) ***`,
        "Can't open the log file: No such file or directory",
      ].join('\n'),
    );
  });

  test('a bad flag value: Invalid argument', async () => {
    expect(await fatal(loadConfig({ configFile: null, flags: [flag('port', 'abc')] }))).toBe(
      [
        `*** FATAL CONFIG ERROR (Strata ${VERSION}) ***`,
        "Invalid argument '--port abc': argument couldn't be parsed into an integer",
        "See 'strata-server --help' for the options.",
      ].join('\n'),
    );
    expect(
      await fatal(loadConfig({ configFile: null, flags: [flag('port', '1', '2')] })),
    ).toContain("Invalid argument '--port 1 2': wrong number of arguments");
  });

  test('settings that contradict each other', async () => {
    expect(
      await fatal(
        loadConfig({ configFile: null, flags: [flag('memory', '1mb'), flag('page-size', '1mb')] }),
      ),
    ).toContain('memory (1mb) must hold at least 2 pages of page-size 1mb');
    expect(
      await fatal(
        loadConfig({
          configFile: null,
          flags: [flag('segment-size', '64kb'), flag('page-size', '128kb')],
        }),
      ),
    ).toContain('segment-size (64kb) must be at least page-size (128kb)');
  });
});
