import type { RdbImportProgress } from '@strata/resp';
import { describeSize } from '@strata/resp';

/** Where the progress goes: a terminal gets a bar redrawn in place, anything else a plain line now and then. */
export interface ProgressOutput {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/** How often a plain (non-terminal) progress line is written. */
export const PLAIN_PROGRESS_MS = 5000;
/** How often a terminal's bar is redrawn. */
export const BAR_PROGRESS_MS = 250;

const BAR_WIDTH = 30;

const rate = (keys: number, ms: number) => Math.round(ms > 0 ? (keys * 1000) / ms : 0);

/** `[#######.......]  45%  12.3mb/27.1mb  1234567 keys  98765 keys/s` */
export function progressText(p: RdbImportProgress, bar: boolean): string {
  const share = p.totalBytes > 0 ? Math.min(1, p.bytesRead / p.totalBytes) : 1;
  const pct = `${Math.floor(share * 100)}%`.padStart(4);
  const done = Math.round(share * BAR_WIDTH);
  const head = bar
    ? `[${'#'.repeat(done)}${'.'.repeat(BAR_WIDTH - done)}] ${pct}`
    : `Importing: ${pct}`;
  return (
    `${head}  ${describeSize(p.bytesRead)}/${describeSize(p.totalBytes)}  ` +
    `${p.keys} keys  ${rate(p.keys, p.ms)} keys/s`
  );
}

/** The import's progress reports, drawn on `out` (stderr). */
export function progressWriter(out: ProgressOutput): {
  readonly intervalMs: number;
  report(p: RdbImportProgress): void;
  /** Ends a bar's line (the summary goes on a line of its own). */
  end(): void;
} {
  const bar = out.isTTY === true;
  let drawn = false;
  return {
    intervalMs: bar ? BAR_PROGRESS_MS : PLAIN_PROGRESS_MS,
    report(p) {
      if (bar) {
        out.write(`\r${progressText(p, true)}\x1b[K`);
        drawn = true;
      } else {
        out.write(`${progressText(p, false)}\n`);
      }
    },
    end() {
      if (drawn) out.write('\n');
      drawn = false;
    },
  };
}
