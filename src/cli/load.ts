// `count-centre load`: brings the store up to date with the catalogue (files, derivations and mirrors), showing
// progress as it goes and a summary table at the end. Also what `add` and `mirror` run after writing the catalogue.

import type { Logger } from 'pino';
import { loadCatalogFile } from '../catalog/load.js';
import { buildDatabase, mirrorOptions, type BuildResult } from '../ingest/build.js';
import type { Settings } from '../settings.js';
import { storageFor } from '../stores.js';
import { EXIT } from './exit-codes.js';
import { LoadProgressReporter, summaryTable } from './progress.js';

export interface LoadRun {
  result: BuildResult;
  description: string;
}

export interface LoadRunOptions {
  force?: boolean;
  /** Where the live progress line and summary go. */
  out: NodeJS.WriteStream;
  logger: Logger;
  /** Overrides how mirrors are read (tests). */
  mirror?: Parameters<typeof buildDatabase>[0]['mirror'];
}

export async function runLoad(settings: Settings, options: LoadRunOptions): Promise<LoadRun> {
  const storage = storageFor(settings);
  const target = storage.loadTarget();
  const progress = new LoadProgressReporter({
    terminal: options.out.isTTY ? options.out : null,
    logger: options.logger,
  });
  const result = await buildDatabase({
    catalog: loadCatalogFile(settings.catalog),
    sources: settings.sources,
    target,
    logger: options.logger,
    force: options.force ?? false,
    progress,
    mirror: { ...mirrorOptions(settings), ...options.mirror },
  }).finally(() => target.close());
  return { result, description: storage.description };
}

/** What `load` prints: whether the store changed, then the table. */
export function loadReport(run: LoadRun): string {
  const head = run.result.rebuilt
    ? `store updated: ${run.description} (dataset version ${run.result.datasetVersion})`
    : `store up to date: ${run.description}`;
  return `${head}\n\n${summaryTable(run.result.outcomes)}\n`;
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
