#!/usr/bin/env node
// The `count-centre` program (package.json's bin): see src/cli/main.ts.

import { run } from './main.js';

run(process.argv.slice(2));
