#!/usr/bin/env node
// `count-centre-load`, kept for scripts written before `count-centre`: the same as `count-centre load`.

import { run } from './main.js';

run(['load', ...process.argv.slice(2)]);
