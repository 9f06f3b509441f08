// CI smoke test of the benchmark harness: runs `bench/run.js --quick` and checks that it measured something sane
// (a service and a ceiling that answered, a ratio, a cold start). It asserts shape and sanity, never speed, so a
// slow or busy machine cannot fail it.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { HTML_PAGES } from '../../bench/html.js';

const run = promisify(execFile);
// This file runs as dist/test/bench/smoke.test.js; the harness is dist/bench/run.js.
const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNNER = path.join(DIST, 'bench', 'run.js');

const positiveNumber = (value: unknown, what: string) => {
  assert.equal(typeof value, 'number', `${what} is a number`);
  assert.ok(Number.isFinite(value as number) && (value as number) > 0, `${what} > 0, got ${String(value)}`);
};

test("the quick benchmark measures the service against the ceiling, a cold start, and the explorer's pages", async () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'countcentre-bench-smoke-'));
  const jsonFile = path.join(out, 'quick.json');
  const env = { ...process.env };
  // The PostgreSQL variant is not for CI: it depends on a server being there.
  delete env['BENCH_DATABASE_URL'];
  try {
    const { stdout } = await run(process.execPath, [RUNNER, '--quick', '--json', jsonFile], {
      env,
      timeout: 180_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    assert.match(stdout, /SKIPPED: PostgreSQL/, 'the report says the PostgreSQL variant was skipped and why');

    const report = JSON.parse(fs.readFileSync(jsonFile, 'utf8'));
    assert.equal(report.schema, 1);
    assert.equal(report.options.quick, true);
    assert.ok(report.machine.cores >= 1);
    assert.match(report.machine.node, /^v\d+/);
    assert.ok(
      report.loadGenerators.default.startsWith('wrk') || report.loadGenerators.default.startsWith('autocannon'),
    );
    assert.deepEqual(report.results.map((r: { id: string }) => r.id).sort(), ['1', '5', '6']);
    for (const r of report.results) assert.equal(r.status, 'measured', `${r.id}: ${r.reason ?? ''}`);

    const s1 = report.results.find((r: { id: string }) => r.id === '1');
    positiveNumber(s1.service.rps, 'service requests/s');
    positiveNumber(s1.ceiling.rps, 'ceiling requests/s');
    positiveNumber(s1.ratio.rps, 'service/ceiling ratio');
    positiveNumber(s1.service.p50Ms, 'service p50');
    assert.ok(s1.service.p99Ms >= s1.service.p50Ms, 'p99 is not below p50');
    positiveNumber(s1.servicePeakRss, 'service peak RSS');
    assert.ok(
      s1.runs.service.every((x: { non2xx: number }) => x.non2xx === 0),
      'the service answered every request with 2xx',
    );
    assert.ok(
      s1.runs.ceiling.every((x: { non2xx: number }) => x.non2xx === 0),
      'the ceiling answered every request with 2xx',
    );
    assert.ok(Array.isArray(s1.targets) && s1.targets.length === 2, 'scenario 1 is judged against its two targets');

    const s5 = report.results.find((r: { id: string }) => r.id === '5');
    positiveNumber(s5.extra.coldStartMs, 'cold start');
    positiveNumber(s5.extra.idleRssBytes, 'idle RSS');

    const s6 = report.results.find((r: { id: string }) => r.id === '6');
    for (const page of Object.keys(HTML_PAGES)) {
      for (const mode of ['Served', 'Rendered'])
        positiveNumber(s6.extra[`${page}${mode}TtfbP95Ms`], `${page} page TTFB p95 (${mode})`);
      positiveNumber(s6.extra[`${page}WeightGzipKB`], `${page} page weight`);
      assert.equal(s6.extra[`${page}Requests`], 3, 'a page loads one stylesheet and one script');
    }
    positiveNumber(s6.extra.jsGzipKB, 'script weight');
    positiveNumber(s6.extra.constituencyFirstVisitTtfbP95Ms, 'first visits of constituency pages');
    // Three a page (time to first byte as served and rendered, weight), and the script's weight.
    assert.equal(s6.targets.length, Object.keys(HTML_PAGES).length * 3 + 1, 'scenario 6 is judged against its targets');

    // The run's working folder (databases, recordings) is removed at the end.
    const workDir = /working folder: (\S+)/.exec(stdout)?.[1];
    assert.ok(workDir, 'the run names its working folder');
    assert.equal(fs.existsSync(workDir), false, `${workDir} was removed`);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
