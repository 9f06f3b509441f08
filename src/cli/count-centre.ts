#!/usr/bin/env node
// The `count-centre` program (package.json's bin): see src/cli/main.ts.

import '../node-version.js';
import { startCommand } from './start.js';

startCommand(process.argv.slice(2), process.argv[1]!);
