// `count-centre load`: brings the store up to date with the catalogue (files, derivations and mirrors), showing
// progress as it goes and a summary table at the end. Also what `add` and `mirror` run after writing the catalogue.

import type { Logger } from 'pino';
import { loadCatalogFile } from '../catalog/load.js';
import { buildDatabase, mirrorOptions, type BuildResult } from '../ingest/build.js';
import { buildPendingIndexes, type IndexBuildResult } from '../ingest/indexes.js';
import type { Settings } from '../settings.js';
import { storageFor } from '../stores.js';
import { EXIT } from './exit-codes.js';
import { LoadProgressReporter, summaryTable } from './progress.js';

export interface LoadRun {
  result: BuildResult;
  description: string;
  /** From the start to the data published: what a reader waits for. */
  servedSeconds: number;
  /** The indexes built once it was published (none asked: `--defer-indexes`, left to a serving process). */
  indexes: IndexBuildResult | null;
}

export interface LoadRunOptions {
  force?: boolean;
  /** Where the live progress line and summary go. */
  out: NodeJS.WriteStream;
  logger: Logger;
  /** Overrides how mirrors are read (tests). */
  mirror?: Parameters<typeof buildDatabase>[0]['mirror'];
  /** Leaves the indexes to be built after publication to a serving process, instead of building them before exit. */
  deferIndexes?: boolean;
}

export async function runLoad(settings: Settings, options: LoadRunOptions): Promise<LoadRun> {
  const storage = storageFor(settings);
  const target = storage.loadTarget();
  const progress = new LoadProgressReporter({
    terminal: options.out.isTTY ? options.out : null,
    logger: options.logger,
  });
  const started = performance.now();
  try {
    const result = await buildDatabase({
      catalog: loadCatalogFile(settings.catalog),
      sources: settings.sources,
      target,
      logger: options.logger,
      force: options.force ?? false,
      progress,
      mirror: { ...mirrorOptions(settings), ...options.mirror },
    });
    const servedSeconds = (performance.now() - started) / 1000;
    let indexes: IndexBuildResult | null = null;
    if (!options.deferIndexes) {
      const terminal = options.out.isTTY ? options.out : null;
      indexes = await buildPendingIndexes(target, {
        logger: options.logger,
        onPublished: (resource, keys, seconds) => {
          if (terminal && keys.length > 0)
            terminal.write(
              `indexed ${resource.name}: ${keys.join(', ')} (${(servedSeconds + seconds).toFixed(1)} s)\n`,
            );
        },
      });
      indexes.seconds += servedSeconds;
    }
    return { result, description: storage.description, servedSeconds, indexes };
  } finally {
    await target.close();
  }
}

/** What `load` prints: whether the store changed, the table, when it was served, and when its indexes were in. */
export function loadReport(run: LoadRun): string {
  const head = run.result.rebuilt
    ? `store updated: ${run.description} (dataset version ${run.result.datasetVersion})`
    : `store up to date: ${run.description}`;
  const lines = [`${head}\n\n${summaryTable(run.result.outcomes)}`];
  if (run.result.outcomes.some((o) => o.status === 'loaded'))
    lines.push(`served after ${run.servedSeconds.toFixed(1)} s`);
  const { indexes } = run;
  if (indexes === null) lines.push('indexes: left to a serving process (--defer-indexes)');
  else if (indexes.built.length > 0 || indexes.refused.length > 0)
    lines.push(
      `indexes: ${indexes.built.length} built, done after ${indexes.seconds.toFixed(1)} s` +
        (indexes.refused.length > 0
          ? `; left out (a value too long for a PostgreSQL index key): ${indexes.refused.map((r) => r.index).join(', ')}`
          : ''),
    );
  if (indexes?.busy) lines.push('indexes: another process is building them');
  return `${lines.join('\n')}\n`;
}

/**
 * 4 when a resource could not be loaded because its portal could not be reached; else 1 when a resource could not be
 * loaded (it is not served, or still serves its previous data); else 0. A mirror waiting for its portal to finish a
 * reload, its last complete copy serving, is not a failure.
 */
export function loadExitCode(result: BuildResult): number {
  if (result.outcomes.some((o) => o.unreachable && (o.status === 'failed' || o.status === 'kept-previous')))
    return EXIT.portal;
  return result.outcomes.some((o) => o.status === 'failed' || o.status === 'kept-previous')
    ? EXIT.resourceFailed
    : EXIT.ok;
}
