#!/usr/bin/env node
// The `count-centre` program (package.json's bin): see src/cli/main.ts.

import '../node-version.js';
import { limitHeapGrowth } from '../util/heap-growth.js';
import { run } from './main.js';
import { runWithLargerYoungGeneration, wantsLargerYoungGeneration } from './young-generation.js';

const argv = process.argv.slice(2);
if (wantsLargerYoungGeneration(argv, process.env, process.execArgv)) {
  runWithLargerYoungGeneration(process.argv[1]!, argv);
} else {
  limitHeapGrowth();
  run(argv);
}
