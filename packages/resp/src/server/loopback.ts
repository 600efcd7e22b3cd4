/** Redis's connIsLocal: 127.0.0.0/8 and ::1 (IPv4-mapped too). */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const a = address.startsWith('::ffff:') ? address.slice(7) : address;
  return a.startsWith('127.') || a === '::1';
}
