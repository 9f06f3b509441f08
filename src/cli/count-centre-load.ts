#!/usr/bin/env node
// `count-centre-load`, kept for scripts written before `count-centre`: the same as `count-centre load`.

import '../node-version.js';
import { limitHeapGrowth } from '../util/heap-growth.js';
import { run } from './main.js';

limitHeapGrowth();
run(['load', ...process.argv.slice(2)]);
