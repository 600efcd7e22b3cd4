import type { AccessPolicy } from '@strata/hlog';

/** The access clock's policy from the parameters' texts (as CONFIG checked them). */
export function accessPolicy(policy: string, logFactor: string, decayTime: string): AccessPolicy {
  return {
    // Redis's MAXMEMORY_FLAG_LFU: volatile-lfu and allkeys-lfu.
    lfu: policy.endsWith('-lfu'),
    logFactor: Number(logFactor),
    decayTime: Number(decayTime),
  };
}
