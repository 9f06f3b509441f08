#!/usr/bin/env node
// `count-centre-load`, kept for scripts written before `count-centre`: the same as `count-centre load`.

import { fileURLToPath } from 'node:url';
import '../node-version.js';
import { limitHeapGrowth } from '../util/heap-growth.js';
import { run } from './main.js';
import { runWithLargerYoungGeneration, wantsLargerYoungGeneration } from './young-generation.js';

const argv = ['load', ...process.argv.slice(2)];
if (wantsLargerYoungGeneration(argv, process.env, process.execArgv)) {
  runWithLargerYoungGeneration(fileURLToPath(new URL('./count-centre.js', import.meta.url)), argv);
} else {
  limitHeapGrowth();
  run(argv);
}
