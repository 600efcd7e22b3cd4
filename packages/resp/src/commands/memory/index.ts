import type { CommandDefinition } from '../../server/command-table.js';
import type { CommandFamily } from '../family.js';
import { helpReply } from '../shared/help-reply.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { memoryDoctor } from './memory-doctor.js';
import { memoryStats } from './memory-stats.js';
import { memoryUsage } from './memory-usage.js';

/**
 * MEMORY: USAGE (a key's bytes), STATS and DOCTOR (from INFO memory's
 * figures and the key counts; jemalloc's fields are 0), PURGE,
 * MALLOC-STATS, HELP (Redis 7.0's text).
 */
const HELP = [
  'MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'DOCTOR',
  '    Return memory problems reports.',
  'MALLOC-STATS',
  '    Return internal statistics report from the memory allocator.',
  'PURGE',
  '    Attempt to purge dirty pages for reclamation by the allocator.',
  'STATS',
  '    Return information about the memory usage of the server.',
  'USAGE <key> [SAMPLES <count>]',
  '    Return memory in bytes used by <key> and its value. Nested values are',
  '    sampled up to <count> times (default: 5, 0 means sample all).',
  'HELP',
  '    Prints this help.',
];

const noKeys = { ...NO_KEYS, acl: [], group: 'server', since: '4.0.0' } as const;

const memoryCommand: CommandDefinition = {
  name: 'memory',
  arity: -2,
  flags: [],
  ...noKeys,
  complexity: 'Depends on subcommand.',
  summary: 'A container for memory diagnostics commands.',
  subcommands: [
    {
      name: 'usage',
      arity: -3,
      flags: ['readonly'],
      // Redis's memoryCommand finds the key with dictFind: no touch.
      touch: 'none',
      firstKey: 2,
      lastKey: 2,
      step: 1,
      acl: [],
      group: 'server',
      since: '4.0.0',
      complexity: 'O(N) where N is the number of samples.',
      summary: 'Estimates the memory usage of a key.',
      handler: memoryUsage,
    },
    {
      name: 'doctor',
      arity: 2,
      flags: [],
      ...noKeys,
      tips: ['nondeterministic_output', 'request_policy:all_shards', 'response_policy:special'],
      complexity: 'O(1)',
      summary: 'Outputs a memory problems report.',
      handler: memoryDoctor,
    },
    {
      name: 'stats',
      arity: 2,
      flags: [],
      ...noKeys,
      tips: ['nondeterministic_output', 'request_policy:all_shards', 'response_policy:special'],
      complexity: 'O(1)',
      summary: 'Returns details about memory usage.',
      handler: memoryStats,
    },
    {
      name: 'purge',
      arity: 2,
      flags: [],
      ...noKeys,
      tips: ['request_policy:all_shards', 'response_policy:all_succeeded'],
      complexity: 'Depends on how much memory is allocated, could be slow',
      summary: 'Asks the allocator to release memory.',
      // The app's way to give memory back, when it has one (strata-server: a full collection).
      handler: (c) => {
        c.server.releaseMemory?.();
        c.reply.simple('OK');
        return undefined;
      },
    },
    {
      name: 'malloc-stats',
      arity: 2,
      flags: [],
      ...noKeys,
      tips: ['nondeterministic_output', 'request_policy:all_shards', 'response_policy:special'],
      complexity: 'Depends on how much memory is allocated, could be slow',
      summary: 'Returns the allocator statistics.',
      // Redis's answer when it is built without jemalloc, as Node is.
      handler: (c) => {
        c.reply.bulk(Buffer.from('Stats not supported for the current allocator'));
        return undefined;
      },
    },
    {
      name: 'help',
      arity: 2,
      flags: ['loading', 'stale'],
      ...noKeys,
      complexity: 'O(1)',
      summary: 'Returns helpful text about the different subcommands.',
      handler: helpReply(HELP),
    },
  ],
};

export const memoryFamily: CommandFamily = {
  name: 'memory',
  commands: [memoryCommand],
};
