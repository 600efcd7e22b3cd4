import type { ServerState } from '../../server/server-state.js';

/** Redis's analyzeLatencyForEvent: over the samples kept, integer ms as Redis's. */
function analyze(samples: readonly { time: number; latency: number }[], now: number) {
  let sum = 0;
  let oldest = 0;
  for (const s of samples) {
    sum += s.latency;
    if (oldest === 0 || s.time < oldest) oldest = s.time;
  }
  const n = samples.length;
  const avg = n === 0 ? 0 : Math.floor(sum / n);
  let period = n === 0 ? 0 : now - oldest;
  if (n > 0 && period === 0) period = 1;
  let deviation = 0;
  for (const s of samples) deviation += Math.abs(avg - s.latency);
  return { n, avg, mad: n === 0 ? 0 : Math.floor(deviation / n), period };
}

/**
 * LATENCY DOCTOR's report, in Redis 7.0's words (createLatencyReport): each
 * event's spikes, then the advice for the events there are. Strata's events
 * are "command" and "fast-command", so only their advice can apply (no
 * fork, AOF, expire or eviction events; no transparent huge pages check).
 */
export function latencyReport(s: ServerState, now: number): string {
  const latency = s.latency;
  if (latency.events.size === 0 && latency.threshold === 0) {
    return `I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use "CONFIG SET latency-monitor-threshold <milliseconds>." in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n`;
  }
  let report = '';
  let advices = 0;
  let slowlogEnable = false;
  let slowlogTune = false;
  let slowlogInspect = false;
  let largeObjects = false;
  let scheduler = false;
  let n = 0;
  for (const [event, series] of latency.events) {
    n++;
    if (n === 1) {
      report +=
        "Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n";
    }
    const a = analyze(series.history(), now);
    report += `${n}. ${event}: ${a.n} latency spikes (average ${a.avg}ms, mean deviation ${a.mad}ms, period ${(a.period / a.n).toFixed(2)} sec). Worst all time event ${series.max}ms.`;
    if (event.toLowerCase() === 'command') {
      const slower = s.slowlog.slowerThan;
      if (slower === Number.POSITIVE_INFINITY) {
        slowlogEnable = true;
        advices++;
      } else if (Math.floor(slower / 1000) > latency.threshold) {
        slowlogTune = true;
        advices++;
      }
      slowlogInspect = true;
      largeObjects = true;
      advices += 2;
    }
    if (event.toLowerCase() === 'fast-command') {
      scheduler = true;
      advices++;
    }
    report += '\n';
  }
  if (n === 0 && advices === 0) {
    return `${report}Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n`;
  }
  if (advices === 0) {
    return `${report}\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n`;
  }
  report += '\nI have a few advices for you:\n\n';
  const threshold = latency.threshold * 1000;
  if (slowlogEnable) {
    report += `- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than ${threshold}'. If the Slow log is disabled Redis is not able to log slow commands execution for you.\n`;
  }
  if (slowlogTune) {
    report += `- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than ${threshold}'.\n`;
  }
  if (slowlogInspect) {
    report +=
      '- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n';
  }
  if (scheduler) {
    report +=
      '- The system is slow to execute Redis code paths not containing system calls. This usually means the system does not provide Redis CPU time to run for long periods. You should try to:\n' +
      '  1) Lower the system load.\n' +
      '  2) Use a computer / VM just for Redis if you are running other software in the same system.\n' +
      '  3) Check if you have a "noisy neighbour" problem.\n' +
      "  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n" +
      '  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using Jemalloc. However this may create fragmentation problems.\n';
  }
  if (largeObjects) {
    report +=
      '- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n';
  }
  return report;
}
