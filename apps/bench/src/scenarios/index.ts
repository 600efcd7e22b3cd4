import type { AnyScenario } from '../scenario.js';
import { bitsDisk } from './bits-disk.js';
import { checkpointPause } from './checkpoint-pause.js';
import { diskRead } from './disk-read.js';
import { durability } from './durability.js';
import { embedded } from './embedded.js';
import { geo } from './geo.js';
import { hlogLoad } from './hlog-load.js';
import { hlogRead } from './hlog-read.js';
import { hlogRecover } from './hlog-recover.js';
import { infoScrape } from './info-scrape.js';
import { ioSeqRead } from './io-seq-read.js';
import { memory } from './memory.js';
import { multigetBatch } from './multiget-batch.js';
import { pageListAppend } from './page-list-append.js';
import { pagebufReadahead } from './pagebuf-readahead.js';
import { pagebufScan } from './pagebuf-scan.js';
import { pubsub } from './pubsub.js';
import { rdbImport } from './rdb-import.js';
import { recovery } from './recovery.js';
import { respThroughput } from './resp-throughput.js';
import { scanDbsize } from './scan-dbsize.js';
import { scanFilters } from './scan-filters.js';
import { scanSummaries } from './scan-summaries.js';
import { scripting } from './scripting.js';
import { streams } from './streams.js';
import { types } from './types.js';

/**
 * Every scenario, in the order `strata-bench list` and `--ci` use.
 * To add one: write `scenarios/<name>.ts` exporting a `defineScenario(...)`
 * and list it here.
 */
export const scenarios: readonly AnyScenario[] = [
  ioSeqRead,
  pagebufScan,
  pagebufReadahead,
  pageListAppend,
  hlogLoad,
  hlogRead,
  hlogRecover,
  scanDbsize,
  scanFilters,
  scanSummaries,
  multigetBatch,
  respThroughput,
  diskRead,
  pubsub,
  durability,
  checkpointPause,
  types,
  streams,
  scripting,
  geo,
  infoScrape,
  bitsDisk,
  rdbImport,
  memory,
  embedded,
  recovery,
];
