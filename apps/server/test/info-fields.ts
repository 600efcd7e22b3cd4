import type { Redis } from 'ioredis';

/** INFO's `field:value` lines of one section, as a map. */
export async function infoFields(r: Redis, section: string): Promise<Map<string, string>> {
  const text = await r.info(section);
  return new Map(
    text
      .split('\r\n')
      .filter((l) => l.includes(':'))
      .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)] as [string, string]),
  );
}

/** One field of an INFO section (an error when the section has none). */
export async function infoField(r: Redis, section: string, field: string): Promise<string> {
  const value = (await infoFields(r, section)).get(field);
  if (value === undefined) throw new Error(`no ${field} in INFO ${section}`);
  return value;
}
