import { parseSize } from '../../memory-size.js';
import type { OutputLimit, OutputLimits } from '../../server/server-state.js';

/** Redis's CONFIG GET form: `normal 0 0 0 slave 268435456 67108864 60 pubsub ...`. */
export function formatOutputLimits(limits: OutputLimits): string {
  const one = (name: string, l: OutputLimit) => `${name} ${l.hard} ${l.soft} ${l.softSeconds}`;
  return [
    one('normal', limits.normal),
    one('slave', limits.replica),
    one('pubsub', limits.pubsub),
  ].join(' ');
}

/**
 * CONFIG SET client-output-buffer-limit: `<class> <hard> <soft> <seconds>`,
 * repeated; the classes named change. The limits, or Redis's reason for
 * refusing the value.
 */
export function parseOutputLimits(
  value: string,
  current: OutputLimits,
): { readonly limits: OutputLimits } | { readonly reason: string } {
  const words = value.split(' ').filter((w) => w !== '');
  if (words.length % 4 !== 0) {
    return { reason: 'Wrong number of arguments in buffer limit configuration.' };
  }
  const next: { -readonly [K in keyof OutputLimits]: OutputLimit } = { ...current };
  for (let i = 0; i < words.length; i += 4) {
    const name = words[i]!.toLowerCase();
    const cls =
      name === 'normal'
        ? 'normal'
        : name === 'slave' || name === 'replica'
          ? 'replica'
          : name === 'pubsub'
            ? 'pubsub'
            : null;
    if (cls === null) {
      return { reason: 'Invalid client class specified in buffer limit configuration.' };
    }
    const hard = parseSize(words[i + 1]!);
    const soft = parseSize(words[i + 2]!);
    const seconds = /^\d+$/.test(words[i + 3]!) ? Number(words[i + 3]) : null;
    if (hard === null || soft === null || seconds === null) {
      return {
        reason: 'Error in hard, soft or soft_seconds setting in buffer limit configuration.',
      };
    }
    next[cls] = { hard, soft, softSeconds: seconds };
  }
  return { limits: next };
}
