// Keeps a serving process's mirrors fresh: every COUNTCENTRE_MIRROR_REFRESH_SECONDS the mirrored resources of the
// catalogue file are probed and, where the portal changed them, copied or patched and published; one line per cycle.

import type { Logger } from 'pino';
import { loadCatalogFile } from '../catalog/load.js';
import { buildDatabase, mirrorOptions, type BuildResult } from '../ingest/build.js';
import type { Settings } from '../settings.js';
import { storageFor } from '../stores.js';
import { withLimitedHeapGrowth } from '../util/heap-growth.js';
import { pausedPortals } from './client.js';

let running: Promise<unknown> = Promise.resolve();

/**
 * Runs one load of this process at a time (the refresh cycle, a poll of a whole portal, the copy of a write): each
 * starts once the one before it is over, whatever became of it.
 */
export function exclusively<T>(work: () => Promise<T>): Promise<T> {
  const turn = running.then(work, work);
  running = turn.catch(() => {});
  return turn;
}

/** What one refresh cycle found, in the one line it logs at info. */
export function refreshSummary(
  result: BuildResult | null,
  nextSeconds: number,
): { message: string; facts: Record<string, unknown> } {
  const mirrored = (result?.outcomes ?? []).filter((o) => o.checked !== undefined);
  const checked = mirrored.filter((o) => o.checked).length;
  const changed = mirrored.filter((o) => o.status === 'loaded');
  const waiting = mirrored.filter((o) => o.status === 'waiting');
  const failing = mirrored.filter((o) => o.status === 'failed' || o.status === 'kept-previous');
  const paused = pausedPortals();
  const extra = [
    waiting.length > 0 ? `${waiting.length} waiting for a reload to finish` : '',
    failing.length > 0 ? `${failing.length} could not be checked or copied` : '',
    paused.length > 0
      ? `${paused.length} portal${paused.length > 1 ? 's' : ''} left alone after repeated failures`
      : '',
  ].filter(Boolean);
  return {
    message: `mirrors: checked ${checked}, changed ${changed.length}, next in ${nextSeconds} s${extra.length > 0 ? ` (${extra.join('; ')})` : ''}`,
    facts: {
      checked,
      changed: changed.map((o) => o.id),
      mirrored: mirrored.length,
      ...(waiting.length > 0 ? { waiting: waiting.map((o) => o.id) } : {}),
      ...(failing.length > 0 ? { failing: failing.map((o) => o.id) } : {}),
      ...(paused.length > 0
        ? { pausedPortals: paused.map((p) => ({ host: p.host, until: p.until.toISOString() })) }
        : {}),
      ...(result?.rebuilt ? { datasetVersion: result.datasetVersion } : {}),
    },
  };
}

/**
 * Checks the mirrored resources of the catalogue file every `mirrorRefreshSeconds`, one cycle at a time: a cycle that
 * finds nothing changed upstream publishes nothing. Each cycle logs one line at info (checked N, changed M, next in
 * S); what it loaded is told there, and problems at warn or error. Returns how to stop it.
 */
export function refreshMirrors(settings: Settings, logger: Logger): () => void {
  if (settings.mirrorRefreshSeconds <= 0) return () => {};
  const intervalMs = settings.mirrorRefreshSeconds * 1000;
  // The load's own lines at info would be a second line per cycle; they stay for a logger that asks for debug.
  const quiet = logger.isLevelEnabled('debug')
    ? logger
    : logger.child({}, { level: logger.isLevelEnabled('warn') ? 'warn' : logger.level });
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const cycle = async () => {
    const started = Date.now();
    let result: BuildResult | null = null;
    let mirrored = false;
    try {
      result = await exclusively(async () => {
        // Read in turn: a poll or a write's copy may have changed the catalogue meanwhile.
        const catalog = loadCatalogFile(settings.catalog);
        mirrored = catalog.resources.some((r) => r.source.kind === 'ckan');
        if (!mirrored) return null;
        const target = storageFor(settings).loadTarget();
        return withLimitedHeapGrowth(() =>
          buildDatabase({
            catalog,
            sources: settings.sources,
            target,
            logger: quiet,
            mirror: mirrorOptions(settings),
          }),
        ).finally(() => target.close());
      });
    } catch (err) {
      logger.error({ err }, `could not refresh the mirrors: ${(err as Error).message}`);
    }
    if (stopped) return;
    // The next cycle starts an interval after this one started, or at once when this one took longer.
    const next = Math.max(0, intervalMs - (Date.now() - started));
    if (mirrored) {
      const { message, facts } = refreshSummary(result, Math.round(next / 1000));
      logger.info({ ...facts, ms: Date.now() - started }, message);
    }
    timer = setTimeout(() => void cycle(), next);
    timer.unref();
  };
  timer = setTimeout(() => void cycle(), intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
