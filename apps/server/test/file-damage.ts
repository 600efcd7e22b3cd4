import { readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';

/** mulberry32: a small seeded generator, so a campaign is replayed from its seed. */
export class SeededRandom {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** In [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('nothing to pick from');
    return items[this.below(items.length)]!;
  }
}

export type DamageKind = 'bit-flip' | 'zero-range' | 'truncate' | 'delete';
export const DAMAGE_KINDS: readonly DamageKind[] = ['bit-flip', 'zero-range', 'truncate', 'delete'];

/** What was done to a file: the byte range [from, to) it changed (delete: the whole file). */
export type Damage =
  | { kind: 'bit-flip'; path: string; bits: readonly number[]; from: number; to: number }
  | { kind: 'zero-range'; path: string; from: number; to: number }
  | { kind: 'truncate'; path: string; from: number; to: number }
  | { kind: 'delete'; path: string; from: number; to: number };

/**
 * Damages `path` in one of `kind`'s ways, chosen by `random`: 1-3 bits
 * flipped (bit offsets within the file), a range of 1 byte to 8 KiB zeroed,
 * the file cut short somewhere before its end, or the file removed.
 * An empty file can only be deleted. `within`: only the first bytes are
 * hit (a file whose end is zeros kept ahead of its data).
 */
export async function damageFile(
  path: string,
  kind: DamageKind,
  random: SeededRandom,
  within?: number,
): Promise<Damage> {
  const size = Math.min((await stat(path)).size, within ?? Number.POSITIVE_INFINITY);
  if (kind === 'delete' || size === 0) {
    const whole = (await stat(path)).size;
    await rm(path);
    return { kind: 'delete', path, from: 0, to: whole };
  }
  if (kind === 'truncate') {
    const at = random.below(size);
    await truncate(path, at);
    return { kind, path, from: at, to: size };
  }
  const bytes = await readFile(path);
  if (kind === 'bit-flip') {
    const bits = Array.from({ length: 1 + random.below(3) }, () => random.below(size * 8));
    for (const b of bits) bytes[b >>> 3]! ^= 1 << (b & 7);
    await writeFile(path, bytes);
    const offsets = bits.map((b) => b >>> 3);
    return { kind, path, bits, from: Math.min(...offsets), to: Math.max(...offsets) + 1 };
  }
  const length = 1 + random.below(Math.min(8192, size));
  const from = random.below(size - length + 1);
  bytes.fill(0, from, from + length);
  await writeFile(path, bytes);
  return { kind, path, from, to: from + length };
}

/** The bytes a damage changed, as ranges (a bit flip's bytes one by one). */
export function damagedRanges(d: Damage): { from: number; to: number }[] {
  if (d.kind === 'bit-flip') return d.bits.map((b) => ({ from: b >>> 3, to: (b >>> 3) + 1 }));
  return [{ from: d.from, to: d.to }];
}
