#!/usr/bin/env node
// The `count-centre` program (package.json's bin): see src/cli/main.ts.

import '../node-version.js';
import { limitHeapGrowth } from '../util/heap-growth.js';
import { run } from './main.js';

limitHeapGrowth();
run(process.argv.slice(2));
