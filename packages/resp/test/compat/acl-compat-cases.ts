import type { SessionCase } from './session-runner.js';

/**
 * ACL against Redis 7.0 over several connections (recorded in
 * acl-compat-expected.json): users and their rules, AUTH and HELLO AUTH,
 * NOPERM for commands, keys and channels (at the top level, queued in
 * MULTI, at EXEC, in scripts), ACL LOG, DRYRUN, requirepass as the default
 * user's password. Each case resets the log first and deletes its users at
 * the end: the server is shared by the cases. Every user that a connection
 * authenticates as may PING (the runner's marker). A rule set describes at
 * most one single command per selector: Redis lists those in its command
 * dict's order, which its hash seed makes differ from run to run. ACL LOG's age-seconds and client-info are masked
 * (maskAclLog), but the client-info's user.
 */
export interface AclCase extends SessionCase {
  /** Replaces what differs between runs (GENPASS's random passwords). */
  readonly mask?: (text: string) => string;
}

const BASE: readonly AclCase[] = [
  {
    name: 'SETUSER, GETUSER, LIST, USERS, DELUSER',
    steps: [
      [0, 'acl', 'log', 'reset'],
      [0, 'acl', 'setuser', 't1', 'on', '>pw', '~k*', '+get', '+@connection'],
      [0, 'acl', 'getuser', 't1'],
      [0, 'acl', 'list'],
      [0, 'acl', 'users'],
      [0, 'acl', 'setuser', 't1', '-get', '>other', '<pw', '%R~r*', '%W~w*', '%RW~b*', '&ch'],
      [0, 'acl', 'getuser', 't1'],
      [0, 'acl', 'setuser', 't1', 'reset'],
      [0, 'acl', 'getuser', 't1'],
      [0, 'acl', 'setuser', 't1', 'nopass', 'allkeys', 'allchannels', 'allcommands', 'on'],
      [0, 'acl', 'list'],
      [0, 'acl', 'setuser', 't1', 'resetpass', 'resetkeys', 'resetchannels', 'nocommands'],
      [0, 'acl', 'list'],
      [
        0,
        'acl',
        'setuser',
        't1',
        '#5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8',
        '+@all',
        '-set',
        '-@string',
      ],
      [0, 'acl', 'list'],
      [
        0,
        'acl',
        'setuser',
        't1',
        '!5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8',
      ],
      [0, 'acl', 'setuser', 't1', '+@all', '-config|set'],
      [0, 'acl', 'getuser', 't1'],
      [0, 'acl', 'setuser', 't1', '-@all', '+select|0'],
      [0, 'acl', 'getuser', 't1'],
      [0, 'acl', 'getuser', 'nobody'],
      [0, 'acl', 'deluser', 't1', 'nobody', 't1'],
      [0, 'acl', 'deluser', 'nobody', 'default'],
      [0, 'acl', 'users'],
    ],
  },
  {
    name: 'a rule that does not parse changes nothing, with Redis’s reason',
    steps: [
      [0, 'acl', 'setuser', 't2', 'on', '>pw', '+get', '~x'],
      [0, 'acl', 'setuser', 't2', 'off', 'bogus'],
      [0, 'acl', 'setuser', 't2', 'off', '+nosuchcommand'],
      [0, 'acl', 'setuser', 't2', 'off', '+@nosuchcategory'],
      [0, 'acl', 'setuser', 't2', 'off', '-nosuchcommand'],
      [0, 'acl', 'setuser', 't2', 'off', 'allkeys', '~y'],
      [0, 'acl', 'setuser', 't2', 'off', 'allchannels', '&y'],
      [0, 'acl', 'setuser', 't2', 'off', '<notapassword'],
      [0, 'acl', 'setuser', 't2', 'off', '#abc'],
      [0, 'acl', 'setuser', 't2', 'off', '!ABC'],
      [0, 'acl', 'setuser', 't2', 'off', '(~x', '+get'],
      [0, 'acl', 'setuser', 't2', 'off', '(~x bogus)'],
      [0, 'acl', 'setuser', 't2', 'off', '+config|get|x'],
      [0, 'acl', 'setuser', 't2', 'off', '+config|nosuch'],
      [0, 'acl', 'setuser', 't2', 'off', '+get|'],
      [0, 'acl', 'setuser', 't2', 'off', '~a b'],
      [0, 'acl', 'setuser', 't2', 'off', '%X~a'],
      [0, 'acl', 'setuser', 'a b', 'on'],
      [0, 'acl', 'list'],
      [0, 'acl', 'deluser', 't2'],
    ],
  },
  {
    name: 'AUTH as a user: NOPERM for commands, keys and channels, logged',
    steps: [
      [0, 'acl', 'log', 'reset'],
      [0, 'acl', 'setuser', 't3', 'on', '>pw', '+@all', '-set', '%R~r*', '%W~w*', '~b*', '&ch*'],
      [1, 'auth', 't3', 'wrong'],
      [1, 'auth', 'nosuchuser', 'pw'],
      [1, 'auth', 't3', 'pw'],
      [1, 'acl', 'whoami'],
      [1, 'set', 'w1', 'v'],
      [1, 'get', 'w1'],
      [1, 'get', 'r1'],
      [1, 'lpush', 'w1', 'a'],
      [1, 'lpush', 'r1', 'a'],
      [1, 'append', 'b1', 'x'],
      [1, 'mget', 'r1', 'b1', 'w2'],
      [1, 'del', 'w1', 'b1'],
      [1, 'publish', 'ch1', 'm'],
      [1, 'publish', 'other', 'm'],
      [1, 'subscribe', 'ch1', 'other'],
      [1, 'psubscribe', 'ch?'],
      [1, 'acl', 'dryrun', 't3', 'get', 'x'],
      [0, 'acl', 'log'],
      [0, 'acl', 'deluser', 't3'],
      [1, 'ping'],
    ],
  },
  {
    name: 'MULTI: a denied command is refused at queue time; EXEC checks each again',
    steps: [
      [0, 'acl', 'log', 'reset'],
      [0, 'acl', 'setuser', 't4', 'on', 'nopass', '+@all', '~*', '&*'],
      [1, 'auth', 't4', 'any'],
      [0, 'acl', 'setuser', 't4', '-set'],
      [1, 'multi'],
      [1, 'set', 'a', '1'],
      [1, 'get', 'a'],
      [1, 'exec'],
      [1, 'multi'],
      [1, 'acl', 'setuser', 't4', '-get', 'resetkeys', '%R~x', 'resetchannels'],
      [1, 'get', 'x'],
      [1, 'exists', 'y'],
      [1, 'strlen', 'x'],
      [1, 'publish', 'c', '1'],
      [1, 'exec'],
      [0, 'acl', 'log', '3'],
      [0, 'acl', 'deluser', 't4'],
    ],
  },
  {
    name: 'scripts: every redis.call is checked against the caller’s user',
    steps: [
      [0, 'acl', 'log', 'reset'],
      [0, 'acl', 'setuser', 't5', 'on', '>pw', '+@all', '-set', '%R~r*', '%W~w*'],
      [1, 'auth', 't5', 'pw'],
      [1, 'eval', "return redis.call('set', 'w1', '1')", '0'],
      [1, 'eval', "return redis.pcall('set', 'w1', '1')", '0'],
      [1, 'eval', "return redis.call('get', 'w1')", '0'],
      [1, 'eval', "return redis.call('get', 'r1')", '0'],
      [1, 'eval', "return redis.call('publish', 'c', '1')", '0'],
      [1, 'eval', "return redis.acl_check_cmd('set', 'w1', '1')", '0'],
      [1, 'eval', "return redis.acl_check_cmd('lpush', 'w1', '1')", '0'],
      [1, 'eval', "return redis.acl_check_cmd('get', 'w1')", '0'],
      [1, 'eval', 'return 1', '1', 'x1'],
      [0, 'acl', 'log', '2'],
      [0, 'acl', 'deluser', 't5'],
    ],
  },
  {
    name: 'requirepass is the default user’s password',
    steps: [
      [0, 'acl', 'log', 'reset'],
      [0, 'config', 'set', 'requirepass', 'rp1'],
      [0, 'acl', 'list'],
      [0, 'config', 'get', 'requirepass'],
      [1, 'auth', 'wrong'],
      [1, 'auth', 'rp1'],
      [1, 'auth', 'default', 'rp1'],
      [1, 'hello', '2', 'auth', 'default', 'bad'],
      [0, 'acl', 'setuser', 'default', '>second'],
      [1, 'auth', 'second'],
      [0, 'acl', 'list'],
      [0, 'config', 'set', 'requirepass', ''],
      [0, 'acl', 'list'],
      [1, 'auth', 'x'],
      [1, 'auth', 'default', 'anything'],
      [0, 'acl', 'log', '2'],
    ],
  },
  {
    name: 'HELLO AUTH, RESET, off and nopass users',
    // HELLO's server version and client id are strata's own.
    mask: (t) =>
      t
        .replace(/\$7\r\nversion\r\n\$\d+\r\n[^\r]*\r\n/g, '$7\r\nversion\r\n<version>\r\n')
        .replace(/\$2\r\nid\r\n:\d+\r\n/g, '$2\r\nid\r\n<id>\r\n'),
    steps: [
      [0, 'acl', 'setuser', 't6', 'on', '>pw', '+@all', '~*'],
      [0, 'acl', 'setuser', 't7', 'off', 'nopass', '+@all'],
      [1, 'hello', '2', 'auth', 't6', 'pw', 'setname', 'n6'],
      [1, 'acl', 'whoami'],
      [1, 'reset'],
      [1, 'acl', 'whoami'],
      [1, 'auth', 't7', 'x'],
      [0, 'acl', 'setuser', 't7', 'on'],
      [1, 'auth', 't7', 'x'],
      [1, 'acl', 'whoami'],
      [0, 'acl', 'setuser', 't7', 'off'],
      [1, 'acl', 'whoami'],
      [1, 'auth', 't6', 'pw'],
      [0, 'acl', 'deluser', 't6', 't7'],
      [1, 'ping'],
    ],
  },
  {
    name: 'selectors: a call allowed by any selector runs',
    steps: [
      [0, 'acl', 'log', 'reset'],
      [0, 'acl', 'setuser', 't8', 'on', '>pw', '+ping', '~a*', '(+get ~b*)', '(%W~c*', '+set)'],
      [0, 'acl', 'getuser', 't8'],
      [0, 'acl', 'list'],
      [1, 'auth', 't8', 'pw'],
      [1, 'get', 'b1'],
      [1, 'get', 'a1'],
      [1, 'set', 'c1', 'v'],
      [1, 'set', 'b1', 'v'],
      [1, 'get', 'c1'],
      [0, 'acl', 'dryrun', 't8', 'get', 'b2'],
      [0, 'acl', 'dryrun', 't8', 'set', 'b2', 'v'],
      [0, 'acl', 'dryrun', 't8', 'lpush', 'c2', 'v'],
      [0, 'acl', 'setuser', 't8', 'clearselectors'],
      [0, 'acl', 'list'],
      [1, 'get', 'b1'],
      [0, 'acl', 'log', '3'],
      [0, 'acl', 'deluser', 't8'],
    ],
  },
  {
    name: 'DRYRUN, LOG count and grouping, acllog-max-len',
    steps: [
      [0, 'acl', 'log', 'reset'],
      [0, 'acl', 'setuser', 't9', 'on', 'nopass', '+@connection', '+get', '%R~r*', '&c'],
      [0, 'acl', 'dryrun', 't9', 'get', 'r1'],
      [0, 'acl', 'dryrun', 't9', 'get', 'x'],
      [0, 'acl', 'dryrun', 't9', 'set', 'r1', 'v'],
      [0, 'acl', 'dryrun', 't9', 'publish', 'd', 'm'],
      [0, 'acl', 'dryrun', 'nobody', 'get', 'x'],
      [0, 'acl', 'dryrun', 't9', 'nosuchcommand'],
      [0, 'acl', 'dryrun', 't9', 'get'],
      [0, 'acl', 'dryrun', 't9', 'config', 'get', 'x'],
      [0, 'acl', 'dryrun', 't9', 'config', 'nosuch'],
      [1, 'auth', 't9', 'x'],
      [1, 'set', 'k', 'v'],
      [1, 'set', 'k', 'v'],
      [1, 'set', 'k', 'v'],
      [1, 'get', 'x'],
      [1, 'del', 'k'],
      [0, 'acl', 'log'],
      [0, 'acl', 'log', '1'],
      [0, 'acl', 'log', '0'],
      [0, 'acl', 'log', '-1'],
      [0, 'acl', 'log', 'x'],
      [0, 'acl', 'log', '1', '2'],
      [0, 'config', 'set', 'acllog-max-len', '1'],
      [0, 'acl', 'log'],
      [0, 'config', 'get', 'acllog-max-len'],
      [0, 'config', 'set', 'acllog-max-len', '128'],
      [0, 'acl', 'log', 'reset'],
      [0, 'acl', 'log'],
      [0, 'acl', 'deluser', 't9'],
    ],
  },
  {
    name: 'CAT, WHOAMI, HELP, GENPASS, SAVE and LOAD without an aclfile',
    mask: (t) => t.replace(/\$(\d+)\r\n([0-9a-f]+)\r\n/g, (_m, n: string) => `$${n}\r\n<hex>\r\n`),
    steps: [
      [0, 'acl', 'cat'],
      [0, 'acl', 'cat', 'nosuch'],
      [0, 'acl', 'whoami'],
      [0, 'acl', 'help'],
      [0, 'acl', 'genpass'],
      [0, 'acl', 'genpass', '5'],
      [0, 'acl', 'genpass', '4096'],
      [0, 'acl', 'genpass', '0'],
      [0, 'acl', 'genpass', '4097'],
      [0, 'acl', 'genpass', 'x'],
      [0, 'acl', 'save'],
      [0, 'acl', 'load'],
      [0, 'acl', 'nosuch'],
      [0, 'acl', 'whoami', 'x'],
    ],
  },
];

/** Each case on RESP2 connections, then on RESP3 ones. */
export const ACL_CASES: readonly AclCase[] = [
  ...BASE,
  ...BASE.map((c) => ({ ...c, name: `${c.name} (RESP3)`, resp3: [0, 1] })),
];

/**
 * ACL LOG's values that differ run to run: age-seconds (a double) and
 * client-info, of which only the user is kept.
 */
export function maskAclLog(text: string): string {
  return text
    .replace(
      /\$11\r\nage-seconds\r\n(?:\$\d+\r\n[^\r]*|,[^\r]*)\r\n/g,
      '$11\r\nage-seconds\r\n<age>\r\n',
    )
    .replace(
      /\$11\r\nclient-info\r\n\$\d+\r\n[^\r]*? user=(\S+) [^\r]*\r\n/g,
      (_m, user: string) => `$11\r\nclient-info\r\n<client user=${user}>\r\n`,
    );
}
