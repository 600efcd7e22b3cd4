import type { Client } from '../../server/client.js';
import type { CommandResult } from '../../server/command-table.js';
import { type MemoryOverhead, memoryOverhead } from './memory-facts.js';

const EMPTY_BYTES = 5 * 1024 * 1024;

const NO_ISSUE =
  "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n";
const EMPTY =
  "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.\n";
const ISSUES = 'Sam, I detected a few issues in this Redis instance memory implants:\n\n';
const BIG_PEAK =
  ' * Peak memory: In the past this instance used more than 150% the memory that is currently using. The allocator is normally not able to release memory after a peak, so you can expect to see a big fragmentation ratio, however this is actually harmless and is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) is currently bigger than expected, the memory will be used as soon as you fill the Redis instance with more data. If the memory peak was only occasional and you want to try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other option is to shutdown and restart the instance.\n\n';
const SIGN_OFF = "I'm here to keep you safe, Sam. I want to help you.\n";

/**
 * Redis's getMemoryDoctorReport, for what strata can tell. Empty: no key
 * at all, or less than 5 MB in use (Redis's only rule; a Node process
 * always uses more, so no keys is what says it here). Then the peak check
 * (peak over 150% of what is used). Redis's fragmentation and allocator
 * checks read jemalloc figures, and V8's RSS always holds far more than
 * the heap in use, so they are not made; neither are the client buffer
 * and script cache checks.
 */
export function doctorReport(m: MemoryOverhead): string {
  if (m.keys === 0 || m.used < EMPTY_BYTES) return EMPTY;
  const issues: string[] = [];
  if (m.peak / m.used > 1.5) issues.push(BIG_PEAK);
  if (issues.length === 0) return NO_ISSUE;
  return ISSUES + issues.join('') + SIGN_OFF;
}

/** MEMORY DOCTOR: the report as verbatim text (a bulk string in RESP2). */
export function memoryDoctor(c: Client): CommandResult {
  return memoryOverhead(c.server).then((m) => {
    c.reply.verbatim(doctorReport(m));
  });
}
