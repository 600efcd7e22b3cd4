import type { LogLevel } from './config.js';

type Level = Exclude<LogLevel, 'nothing'>;

const RANK: Record<LogLevel, number> = { debug: 0, verbose: 1, notice: 2, warning: 3, nothing: 4 };
/** Redis's level marks: `.` debug, `-` verbose, `*` notice, `#` warning. */
const MARK: Record<Level, string> = { debug: '.', verbose: '-', notice: '*', warning: '#' };
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `29 Nov 2026 21:50:01.123`, local time, as Redis's log lines. */
export function formatTimestamp(d: Date): string {
  return (
    `${pad(d.getDate())} ${MONTHS[d.getMonth()]} ${d.getFullYear()} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`
  );
}

export interface LoggerOptions {
  level: LogLevel;
  /** Where lines go. Default stdout (synchronous for files and pipes on Linux). */
  write?: (line: string) => void;
  now?: () => Date;
  pid?: number;
}

/**
 * Redis-style log lines: `<pid>:M 29 Nov 2026 21:50:01.123 * Ready to accept
 * connections tcp`, written when their level is at least the configured one.
 */
export class Logger {
  level: LogLevel;
  private readonly write: (line: string) => void;
  private readonly now: () => Date;
  private readonly pid: number;

  constructor(options: LoggerOptions) {
    this.level = options.level;
    this.write = options.write ?? ((line) => process.stdout.write(line));
    this.now = options.now ?? (() => new Date());
    this.pid = options.pid ?? process.pid;
  }

  enabled(level: Level): boolean {
    return RANK[level] >= RANK[this.level];
  }

  log(level: Level, message: string): void {
    if (!this.enabled(level)) return;
    this.write(`${this.pid}:M ${formatTimestamp(this.now())} ${MARK[level]} ${message}\n`);
  }

  debug(message: string): void {
    this.log('debug', message);
  }

  verbose(message: string): void {
    this.log('verbose', message);
  }

  notice(message: string): void {
    this.log('notice', message);
  }

  warning(message: string): void {
    this.log('warning', message);
  }

  /** What Redis logs from its signal handler: `<pid>:signal-handler (<unix time>) <message>`. */
  signal(message: string): void {
    if (!this.enabled('warning')) return;
    const unix = Math.floor(this.now().getTime() / 1000);
    this.write(`${this.pid}:signal-handler (${unix}) ${message}\n`);
  }
}

// Seconds with Redis's three decimals (`0.012`): one formatter for the server and the store's logs.
export { seconds } from '@strata/store';
