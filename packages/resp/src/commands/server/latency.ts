import { CommandError } from '../../errors.js';
import type { Client } from '../../server/client.js';
import type {
  CommandDefinition,
  CommandFlagName,
  CommandSpec,
} from '../../server/command-table.js';
import { HISTOGRAM_BUCKETS_US } from '../../server/latency-histogram.js';
import { helpReply } from '../shared/help-reply.js';
import { NO_KEYS } from '../shared/key-positions.js';
import { latencyGraph } from './latency-graph.js';
import { latencyReport } from './latency-report.js';

const FLAGS: CommandFlagName[] = ['admin', 'noscript', 'loading', 'stale'];
const TIPS = ['nondeterministic_output', 'request_policy:all_nodes', 'response_policy:special'];
const meta = { ...NO_KEYS, acl: [], group: 'server', since: '2.8.13' } as const;

const HELP = [
  'LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:',
  'DOCTOR',
  '    Return a human readable latency analysis report.',
  'GRAPH <event>',
  '    Return an ASCII latency graph for the <event> class.',
  'HISTORY <event>',
  '    Return time-latency samples for the <event> class.',
  'LATEST',
  '    Return the latest latency samples for all events.',
  'RESET [<event> ...]',
  '    Reset latency data of one or more <event> classes.',
  '    (default: reset all data for all event classes)',
  'HISTOGRAM [COMMAND ...]',
  '    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.',
  '    If no commands are specified then all histograms are replied.',
  'HELP',
  '    Prints this help.',
];

const now = () => Math.floor(Date.now() / 1000);

/** One command's LATENCY HISTOGRAM entry: its calls, and the cumulative count at each bucket reached. */
function writeHistogram(c: Client, spec: CommandSpec, h: Float64Array): void {
  const w = c.reply;
  let total = 0;
  let buckets = 0;
  for (const n of h) {
    if (n > 0) buckets++;
    total += n;
  }
  w.bulk(spec.fullName);
  w.map(2);
  w.bulk('calls').integer(total);
  w.bulk('histogram_usec').map(buckets);
  let cumulative = 0;
  for (let k = 0; k < h.length; k++) {
    if (h[k] === 0) continue;
    cumulative += h[k]!;
    w.integer(HISTOGRAM_BUCKETS_US[k]!).integer(cumulative);
  }
}

/** A command and its subcommands that have a histogram (Redis: a container's whole family). */
function withHistograms(spec: CommandSpec, out: CommandSpec[]): void {
  if (spec.histogram !== null) out.push(spec);
  if (spec.subcommands !== null) for (const sub of spec.subcommands) withHistograms(sub, out);
}

/** Redis's lookupCommandBySds: `name` or `container|sub`, any case; undefined when unknown. */
function lookup(c: Client, name: string): CommandSpec | undefined {
  const [top, sub, more] = name.split('|');
  const spec = c.server.table.get(top ?? '');
  if (sub === undefined || spec === undefined) return spec;
  if (more !== undefined) return undefined;
  return spec.subcommands?.get(sub);
}

/**
 * LATENCY DOCTOR | GRAPH | HISTORY | LATEST | RESET | HISTOGRAM | HELP,
 * Redis 7.0's (latency.c). The events are the dispatcher's: "command" and
 * "fast-command" (a command flagged `fast`) samples of at least
 * latency-monitor-threshold ms, one per second, the last 160 kept. The
 * histograms are every command's calls by powers of two of µs, counted
 * while latency-tracking is yes (latency-histogram.ts).
 */
export const latencyCommand: CommandDefinition = {
  name: 'latency',
  arity: -2,
  flags: [],
  ...meta,
  complexity: 'Depends on subcommand.',
  summary: 'A container for latency diagnostics commands.',
  subcommands: [
    {
      name: 'doctor',
      arity: 2,
      flags: FLAGS,
      ...meta,
      tips: TIPS,
      complexity: 'O(1)',
      summary: 'Returns a human-readable latency analysis report.',
      handler(c) {
        c.reply.verbatim(latencyReport(c.server, now()));
        return undefined;
      },
    },
    {
      name: 'graph',
      arity: 3,
      flags: FLAGS,
      ...meta,
      tips: TIPS,
      complexity: 'O(1)',
      summary: 'Returns a latency graph for an event.',
      handler(c, argv) {
        const event = argv[2]!.toString('latin1');
        const series = c.server.latency.events.get(event);
        if (series === undefined) {
          throw new CommandError(
            'ERR_NO_LATENCY_SAMPLES',
            `ERR No samples available for event '${event}'`,
            true,
          );
        }
        c.reply.verbatim(latencyGraph(event, series, now()));
        return undefined;
      },
    },
    {
      name: 'history',
      arity: 3,
      flags: FLAGS,
      ...meta,
      tips: TIPS,
      complexity: 'O(1)',
      summary: 'Returns timestamp-latency samples for an event.',
      handler(c, argv) {
        const samples = c.server.latency.events.get(argv[2]!.toString('latin1'))?.history() ?? [];
        c.reply.array(samples.length);
        for (const s of samples) c.reply.array(2).integer(s.time).integer(s.latency);
        return undefined;
      },
    },
    {
      name: 'latest',
      arity: 2,
      flags: FLAGS,
      ...meta,
      tips: TIPS,
      complexity: 'O(1)',
      summary: 'Returns the latest latency samples for all events.',
      handler(c) {
        const events = c.server.latency.events;
        c.reply.array(events.size);
        for (const [event, series] of events) {
          const last = series.latest();
          c.reply.array(4).bulk(event).integer(last.time).integer(last.latency).integer(series.max);
        }
        return undefined;
      },
    },
    {
      name: 'reset',
      arity: -2,
      flags: FLAGS,
      ...meta,
      tips: ['request_policy:all_nodes', 'response_policy:all_succeeded'],
      complexity: 'O(1)',
      summary: 'Resets the latency data for one or more events.',
      handler(c, argv) {
        const latency = c.server.latency;
        let n = 0;
        if (argv.length === 2) n = latency.reset();
        for (let i = 2; i < argv.length; i++) n += latency.reset(argv[i]!.toString('latin1'));
        c.reply.integer(n);
        return undefined;
      },
    },
    {
      name: 'histogram',
      arity: -2,
      flags: FLAGS,
      ...meta,
      since: '7.0.0',
      tips: TIPS,
      complexity:
        'O(N) where N is the number of commands with latency information being retrieved.',
      summary: 'Returns the cumulative distribution of latencies of a subset or all commands.',
      handler(c, argv) {
        const specs: CommandSpec[] = [];
        if (argv.length === 2) for (const spec of c.server.table) withHistograms(spec, specs);
        for (let i = 2; i < argv.length; i++) {
          const spec = lookup(c, argv[i]!.toString('latin1'));
          if (spec !== undefined) withHistograms(spec, specs);
        }
        c.reply.map(specs.length);
        for (const spec of specs) writeHistogram(c, spec, spec.histogram!);
        return undefined;
      },
    },
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
