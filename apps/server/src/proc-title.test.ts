import { describe, expect, test } from 'vitest';
import { expandProcTitle } from './proc-title.js';
import { formatShutdownOptions, parseShutdownOptions } from './shutdown-options.js';

const VARS = {
  title: '/usr/bin/strata-server',
  bind: '127.0.0.1',
  port: 6380,
  unixsocket: '/tmp/s.sock',
  configFile: null,
};

describe("proc-title-template, expanded as Redis's expandProcTitleTemplate", () => {
  test('every variable; spaces trimmed at the ends only', () => {
    expect(expandProcTitle('{title} {listen-addr} {server-mode}', VARS)).toBe(
      '/usr/bin/strata-server 127.0.0.1:6380',
    );
    expect(
      expandProcTitle(' {port}  {tls-port} {unixsocket} {config-file} ', {
        ...VARS,
        configFile: '/etc/strata.conf',
      }),
    ).toBe('6380  0 /tmp/s.sock /etc/strata.conf');
    expect(expandProcTitle('{config-file}', VARS)).toBe('-');
    expect(expandProcTitle('{listen-addr}', { ...VARS, port: 0 })).toBe('unixsocket:/tmp/s.sock');
  });
});

describe('shutdown-on-sigint / shutdown-on-sigterm flags', () => {
  test('parsed from and printed as CONFIG GET prints them', () => {
    expect(parseShutdownOptions('default')).toEqual({
      save: false,
      nosave: false,
      now: false,
      force: false,
    });
    const o = parseShutdownOptions('nosave now force');
    expect(o).toEqual({ save: false, nosave: true, now: true, force: true });
    expect(formatShutdownOptions(o)).toBe('nosave now force');
    expect(formatShutdownOptions(parseShutdownOptions('default'))).toBe('default');
  });
});
