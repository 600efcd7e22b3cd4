import { compileGlob } from '@strata/scan';
import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type { CommandDefinition, CommandResult } from '../../server/command-table.js';
import type { ServerSlot } from '../family.js';
import { helpReply } from '../shared/help-reply.js';
import { NO_KEYS } from '../shared/key-positions.js';
import type { FunctionLibraries, Library } from './function-libraries.js';
import { killSubcommand } from './kill-subcommand.js';
import { functionsVmSetup, scriptsSlot } from './script-cache.js';

const HELP = [
  'FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'LOAD [REPLACE] <FUNCTION CODE>',
  '    Create a new library with the given library name and code.',
  'DELETE <LIBRARY NAME>',
  '    Delete the given library.',
  'LIST [LIBRARYNAME PATTERN] [WITHCODE]',
  '    Return general information on all the libraries:',
  '    * Library name',
  '    * The engine used to run the Library',
  '    * Library description',
  '    * Functions list',
  '    * Library code (if WITHCODE is given)',
  '    It also possible to get only function that matches a pattern using LIBRARYNAME argument.',
  'STATS',
  '    Return information about the current function running:',
  '    * Function name',
  '    * Command used to run the function',
  '    * Duration in MS that the function is running',
  '    If no function is running, return nil',
  '    In addition, returns a list of available engines.',
  'KILL',
  '    Kill the current running function.',
  'FLUSH [ASYNC|SYNC]',
  '    Delete all the libraries.',
  '    When called without the optional mode argument, the behavior is determined by the',
  '    lazyfree-lazy-user-flush configuration directive. Valid modes are:',
  '    * ASYNC: Asynchronously flush the libraries.',
  '    * SYNC: Synchronously flush the libraries.',
  'DUMP',
  '    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command',
  'RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]',
  '    Restore the libraries represented by the given payload, it is possible to give a restore policy to',
  '    control how to handle existing libraries (default APPEND):',
  '    * FLUSH: delete all existing libraries.',
  '    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.',
  '    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old',
  '      libraries with the new libraries (notice that even on this option there is a chance of failure',
  '      in case of functions name collision with another library).',
  'HELP',
  '    Prints this help.',
];

const meta = { ...NO_KEYS, acl: ['scripting'], group: 'scripting', since: '7.0.0' } as const;
const ok = (c: Client) => {
  c.reply.simple('OK');
};
const syntax = (message: string) => new CommandError('ERR_SYNTAX', message, true);

/** Replies OK now, or once the libraries are saved. */
function okWhenSaved(c: Client, saved: Promise<void> | undefined): CommandResult {
  if (saved === undefined) {
    ok(c);
    return undefined;
  }
  return saved.then(() => ok(c));
}

function writeLibrary(c: Client, lib: Library, withCode: boolean): void {
  const r = c.reply;
  r.map(withCode ? 4 : 3);
  r.bulk('library_name').bulk(lib.name);
  r.bulk('engine').bulk('LUA');
  r.bulk('functions').array(lib.functions.size);
  for (const f of lib.functions.values()) {
    r.map(3);
    r.bulk('name').bulk(f.name);
    r.bulk('description');
    if (f.description === null) r.null();
    else r.bulk(f.description);
    r.bulk('flags').set(f.flags.length);
    for (const flag of f.flags) r.simple(flag);
  }
  if (withCode) r.bulk('library_code').bulk(lib.code);
}

/**
 * FUNCTION LOAD, DELETE, FLUSH, LIST, DUMP, RESTORE, STATS, KILL, HELP. A
 * change is saved (the function store) before its OK: the libraries
 * survive a restart and a crash, with or without an append-only file, so
 * none of these is logged to one.
 */
export function functionCommand(libraries: ServerSlot<FunctionLibraries>): CommandDefinition {
  const libs = (c: Client) => c.server.state(libraries);
  return {
    name: 'function',
    arity: -2,
    flags: [],
    ...meta,
    complexity: 'Depends on subcommand.',
    summary: 'A container for function commands.',
    subcommands: [
      {
        name: 'load',
        arity: -3,
        flags: ['write', 'denyoom', 'noscript'],
        ...meta,
        tips: ['request_policy:all_shards', 'response_policy:all_succeeded'],
        complexity: 'O(1) (considering compilation time is redundant)',
        summary: 'Creates a library.',
        setup: functionsVmSetup,
        handler(c, argv) {
          let replace = false;
          for (let i = 2; i < argv.length - 1; i++) {
            const opt = argv[i]!.toString('latin1');
            if (opt.toLowerCase() !== 'replace') throw syntax(`ERR Unknown option given: ${opt}`);
            replace = true;
          }
          c.propagate();
          const name = libs(c).load(argv[argv.length - 1]!, replace);
          if (typeof name === 'string') {
            c.reply.bulk(name);
            return undefined;
          }
          return name.then((n) => {
            c.reply.bulk(n);
          });
        },
      },
      {
        name: 'delete',
        arity: 3,
        flags: ['write', 'noscript'],
        ...meta,
        tips: ['request_policy:all_shards', 'response_policy:all_succeeded'],
        complexity: 'O(1)',
        summary: 'Deletes a library and its functions.',
        handler(c, argv) {
          c.propagate();
          return okWhenSaved(c, libs(c).delete(argv[2]!.toString('latin1')));
        },
      },
      {
        name: 'flush',
        arity: -2,
        flags: ['write', 'noscript'],
        ...meta,
        tips: ['request_policy:all_shards', 'response_policy:all_succeeded'],
        complexity: 'O(N) where N is the number of functions deleted',
        summary: 'Deletes all libraries and functions.',
        handler(c, argv) {
          if (argv.length > 3) {
            throw syntax(
              "ERR unknown subcommand or wrong number of arguments for 'flush'. Try FUNCTION HELP.",
            );
          }
          const mode = argv[2]?.toString('latin1').toLowerCase();
          if (mode !== undefined && mode !== 'sync' && mode !== 'async') {
            throw syntax('ERR FUNCTION FLUSH only supports SYNC|ASYNC option');
          }
          c.propagate();
          return okWhenSaved(c, libs(c).flush());
        },
      },
      {
        name: 'list',
        arity: -2,
        flags: ['noscript'],
        ...meta,
        tips: ['nondeterministic_output_order'],
        complexity: 'O(N) where N is the number of functions',
        summary: 'Returns information about all libraries.',
        handler(c, argv) {
          let withCode = false;
          let pattern: Buffer | null = null;
          for (let i = 2; i < argv.length; i++) {
            const opt = argv[i]!.toString('latin1');
            const lower = opt.toLowerCase();
            if (lower === 'withcode' && !withCode) withCode = true;
            else if (lower === 'libraryname' && pattern === null) {
              if (i + 1 >= argv.length) throw syntax('ERR library name argument was not given');
              pattern = argv[++i]!;
            } else throw syntax(`ERR Unknown argument ${opt}`);
          }
          const glob = pattern === null ? null : compileGlob(pattern, { nocase: false });
          const chosen = [...libs(c).list()].filter((l) => {
            if (glob === null) return true;
            const b = Buffer.from(l.name, 'latin1');
            return glob.match(b, 0, b.length);
          });
          c.reply.array(chosen.length);
          for (const l of chosen) writeLibrary(c, l, withCode);
          return undefined;
        },
      },
      {
        name: 'dump',
        arity: 2,
        flags: ['noscript'],
        ...meta,
        complexity: 'O(N) where N is the number of functions',
        summary: 'Dumps all libraries into a serialized binary payload.',
        handler(c) {
          c.reply.bulk(libs(c).dump());
          return undefined;
        },
      },
      {
        name: 'restore',
        arity: -3,
        flags: ['write', 'denyoom', 'noscript'],
        ...meta,
        tips: ['request_policy:all_shards', 'response_policy:all_succeeded'],
        complexity: 'O(N) where N is the number of functions on the payload',
        summary: 'Restores all libraries from a payload.',
        setup: functionsVmSetup,
        handler(c, argv) {
          if (argv.length > 4) {
            throw syntax(
              "ERR unknown subcommand or wrong number of arguments for 'restore'. Try FUNCTION HELP.",
            );
          }
          const policy = (argv[3]?.toString('latin1') ?? 'append').toLowerCase();
          if (policy !== 'flush' && policy !== 'append' && policy !== 'replace') {
            throw syntax(
              'ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.',
            );
          }
          c.propagate();
          return okWhenSaved(c, libs(c).restore(argv[2]!, policy));
        },
      },
      {
        name: 'stats',
        arity: 2,
        flags: ['noscript', 'allow_busy'],
        ...meta,
        tips: ['nondeterministic_output', 'request_policy:all_shards', 'response_policy:special'],
        complexity: 'O(1)',
        summary: 'Returns information about a function during execution.',
        handler(c) {
          const l = libs(c);
          const running = c.server.state(scriptsSlot).engine.running;
          const r = c.reply;
          r.map(2);
          r.bulk('running_script');
          if (running === null || !running.isFunction) r.null();
          else {
            r.map(3);
            r.bulk('name').bulk(running.name);
            r.bulk('command').array(running.argv.length);
            for (const a of running.argv) r.bulk(a);
            r.bulk('duration_ms').integer(Date.now() - running.startedAt);
          }
          r.bulk('engines').map(1);
          r.bulk('LUA').map(2);
          r.bulk('libraries_count').integer(l.libraryCount);
          r.bulk('functions_count').integer(l.functionCount);
          return undefined;
        },
      },
      killSubcommand('7.0.0', 'Terminates a function during execution.'),
      {
        name: 'help',
        arity: 2,
        flags: ['loading', 'stale'],
        ...meta,
        complexity: 'O(1)',
        summary: 'Returns helpful text about the different subcommands.',
        handler: helpReply(HELP),
      },
    ],
  };
}
