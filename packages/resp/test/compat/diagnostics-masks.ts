/**
 * What the diagnostics compat cases compare by shape: times, durations and
 * addresses differ between two servers, and between two runs of one. Each
 * mask rewrites a RESP transcript so that only those values are replaced,
 * everything around them (types, counts, order, texts) kept byte for byte.
 */

/** SLOWLOG GET entries: ids relative to the smallest one shown, times and µs hidden. */
export function maskSlowlog(text: string): string {
  const header = /\*6\r\n:(\d+)\r\n:(\d+)\r\n:(\d+)\r\n/g;
  const ids = [...text.matchAll(header)].map((m) => Number(m[1]));
  const min = Math.min(...ids);
  return maskAddress(
    text.replace(
      header,
      (_, id: string) => `*6\r\n:<id+${Number(id) - min}>\r\n:<time>\r\n:<us>\r\n`,
    ),
  );
}

/** A client's own address (`127.0.0.1:port` as a bulk string or in a MONITOR line). */
export function maskAddress(text: string): string {
  return text
    .replace(/\$\d+\r\n127\.0\.0\.1:\d+\r\n/g, '$<n>\r\n<addr>\r\n')
    .replace(/127\.0\.0\.1:\d+/g, '<addr>');
}

/** MONITOR lines: the time hidden (`+<time> [0 <addr>] "ping"`). */
export function maskMonitor(text: string): string {
  return maskAddress(text.replace(/\+\d+\.\d{6} \[/g, '+<time> ['));
}

/**
 * Bulk strings whose content starts with `prefix`: `edit` rewrites the
 * content, and the length becomes `$?` (the edit changes it).
 */
export function maskBulks(text: string, prefix: string, edit: (content: string) => string): string {
  let out = '';
  let at = 0;
  const header = /\$(\d+)\r\n/g;
  for (let m = header.exec(text); m !== null; m = header.exec(text)) {
    const start = m.index + m[0].length;
    if (m.index < at || !text.startsWith(prefix, start)) continue;
    const end = start + Number(m[1]);
    out += `${text.slice(at, m.index)}$?\r\n${edit(text.slice(start, end))}`;
    at = end;
    header.lastIndex = end;
  }
  return out + text.slice(at);
}

/** Every number in a text (LATENCY DOCTOR and GRAPH: latencies, times, periods). */
export const maskDigits = (content: string): string => content.replace(/\d+/g, '<n>');

/** INFO commandstats: usec hidden, lines sorted (Redis lists them in its dict's order). */
export function maskCommandstats(text: string): string {
  return maskBulks(text, '# Commandstats\r\n', (content) => {
    const lines = content.split('\r\n');
    const stats = lines
      .slice(1)
      .filter((l) => l !== '')
      .map((l) => l.replace(/usec=\d+,usec_per_call=\d+\.\d\d/, 'usec=<n>,usec_per_call=<n>'))
      .sort();
    return `${lines[0]}\r\n${stats.join('\r\n')}\r\n`;
  });
}

/** LATENCY HISTOGRAM's bucket maps (`histogram_usec` then 2N integers): hidden, the calls kept. */
export function maskHistogram(text: string): string {
  const head = /histogram_usec\r\n[*%](\d+)\r\n/g;
  let out = '';
  let at = 0;
  for (let m = head.exec(text); m !== null; m = head.exec(text)) {
    const n = m[0].startsWith('histogram_usec\r\n*') ? Number(m[1]) : 2 * Number(m[1]);
    let end = m.index + m[0].length;
    for (let i = 0; i < n; i++) end = text.indexOf('\r\n', end) + 2;
    out += `${text.slice(at, m.index)}histogram_usec\r\n<buckets>\r\n`;
    at = end;
    head.lastIndex = end;
  }
  return out + text.slice(at);
}

/** LATENCY LATEST and HISTORY entries: times and latencies hidden. */
export function maskLatency(text: string): string {
  return text
    .replace(
      /(\*4\r\n\$\d+\r\n[a-z-]+\r\n):\d+\r\n:\d+\r\n:\d+\r\n/g,
      '$1:<time>\r\n:<ms>\r\n:<ms>\r\n',
    )
    .replace(/\*2\r\n:\d{9,}\r\n:\d+\r\n/g, '*2\r\n:<time>\r\n:<ms>\r\n');
}
