#!/usr/bin/env node
// `count-centre-load`, kept for scripts written before `count-centre`: the same as `count-centre load`.

import { fileURLToPath } from 'node:url';
import '../node-version.js';
import { startCommand } from './start.js';

startCommand(['load', ...process.argv.slice(2)], fileURLToPath(new URL('./count-centre.js', import.meta.url)));
