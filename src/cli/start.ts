// How both programs start a command line: again in a process with a larger young generation when it loads into
// PostgreSQL (src/cli/young-generation.ts), else here, with the heap's growth limited as every serving process's is.

import { limitHeapGrowth } from '../util/heap-growth.js';
import { run } from './main.js';
import { runWithLargerYoungGeneration, wantsLargerYoungGeneration } from './young-generation.js';

/** `entry` is the `count-centre` program's file, which a restarted process runs with `argv`. */
export function startCommand(argv: readonly string[], entry: string): void {
  if (wantsLargerYoungGeneration(argv, process.env, process.execArgv)) {
    runWithLargerYoungGeneration(entry, argv);
    return;
  }
  limitHeapGrowth();
  run([...argv]);
}
