import { main } from './main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`strata-bench: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  },
);
