/**
 * Config lines redis-server 7.0.15 refuses, each with its reason.
 */
// Each line alone in a file; the reasons are redis-server 7.0.15's own
// (src/config-process.test.ts compares with redis-server itself when it is installed).
export const BAD_LINES: readonly (readonly [string, string])[] = [
  ['port', 'wrong number of arguments'],
  ['port 1 2', 'wrong number of arguments'],
  ['port abc', "argument couldn't be parsed into an integer"],
  ['port 70000', 'argument must be between 0 and 65535 inclusive'],
  ['save 1', 'Invalid save parameters'],
  ['save 0 1', 'Invalid save parameters'],
  ['bogus 1', 'Bad directive or wrong number of arguments'],
  ['include', 'Bad directive or wrong number of arguments'],
  ['rename-command foo bar', 'No such command in rename-command'],
  ['rename-command get', 'Bad directive or wrong number of arguments'],
  ['sentinel monitor x', 'sentinel directive while not in sentinel mode'],
  ['foo.bar', 'Module config specified without value'],
  ['replicaof a', 'wrong number of arguments'],
  ['replicaof a b', 'Invalid master port'],
  ['protected-mode maybe', "argument must be 'yes' or 'no'"],
  ['databases 0', 'argument must be between 1 and 2147483647 inclusive'],
  ['maxmemory lots', 'argument must be a memory value'],
  ['loglevel nothing', 'argument(s) must be one of the following: debug, verbose, notice, warning'],
  ['appendfsync sometimes', 'argument(s) must be one of the following: everysec, always, no'],
  ['notify-keyspace-events Q', "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."],
  ['bind 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17', 'Too many bind addresses specified.'],
  ['requirepass "unbalanced', 'Unbalanced quotes in configuration line'],
  ['activedefrag yes', 'Active defragmentation cannot be enabled: it requires a Redis server'],
  ['oom-score-adj-values 0 200', 'wrong number of arguments'],
  ['maxclients 0', 'argument must be between 1 and 4294967295 inclusive'],
  [
    'client-output-buffer-limit normal 0 0',
    'Wrong number of arguments in buffer limit configuration.',
  ],
  ['user', 'Bad directive or wrong number of arguments'],
  // Redis names the line's word at the failing rule's index among the rules (its quirk).
  ['user alice on badrule', "Error in user declaration 'alice': Syntax error"],
  ['user alice on >p ~x +get badone', "Error in user declaration '~x': Syntax error"],
  [
    'user alice on ~x (+get',
    "Error in user declaration 'on': Unknown command or category name in ACL",
  ],
  [
    'user bob on ~* ~x',
    "Error in user declaration 'on': Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start with an empty list of patterns",
  ],
  [
    'user bob on <nopw',
    "Error in user declaration 'bob': The password you are trying to remove from the user does not exist",
  ],
];
