import type { RecordSpace } from '@strata/hlog';

/** The page being walked: where its bytes are, valid until the page callback returns. */
export interface PageContext {
  address: number;
  rec: RecordSpace;
  /** Offset of the page's first byte in `rec`. */
  base: number;
  /** Bytes of the page in use (header included). */
  used: number;
  onDisk: boolean;
}
