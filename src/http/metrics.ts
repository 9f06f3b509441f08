// The process's metrics in Prometheus' text format (`GET /metrics`): requests by action and status, their latency,
// the response cache, the store's pools and query workers, the data version and its reloads, and Node's own process
// metrics. A request is counted with a few array and map operations (the exposition is written at scrape time), so it
// stays on even for answers that take microseconds.

import type { Registry } from 'prom-client';

/** Figures a store reports about its own resources (pool connections, query workers), read at each scrape. */
export type StoreStats = Record<string, number>;

export interface MetricsSources {
  /** The dataset version served now. */
  datasetVersion(): string;
  storeStats(): StoreStats;
  responseCache(): { entries: number; bytes: number };
}

/** Upper bounds (seconds) of the latency histogram's buckets. */
const BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** One action's latencies: a count per bucket (the last is +Inf), their sum, and requests by status. */
interface ActionFigures {
  buckets: Float64Array;
  sum: number;
  byStatus: Map<number, number>;
}

/** A label value in the exposition format: backslash, quote and newline escaped. */
function label(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

export class ApiMetrics {
  private registry: Promise<Registry> | null = null;
  private readonly actions = new Map<string, ActionFigures>();
  private hits = 0;
  private misses = 0;
  private reloads = 0;
  private lastVersion: string | null = null;
  /** In front of a portal: answers by where they came from (copy, cache, revalidated, stale, portal). */
  private readonly bySource = new Map<string, number>();
  /** The portal's latency, for the answers it was asked for. */
  private readonly portal = { buckets: new Float64Array(BUCKETS.length + 1), sum: 0 };

  constructor(private readonly sources: MetricsSources) {}

  /**
   * prom-client (some 12 MB) is loaded by the first scrape, not at start: the figures counted per request need none of
   * it, and a process nobody scrapes never holds it. Node's own figures (CPU, memory, event loop) start then.
   */
  private metricsRegistry(): Promise<Registry> {
    this.registry ??= import('prom-client').then(({ default: client }) => {
      const registry = new client.Registry();
      const registers = [registry];
      const { sources } = this;
      const self = this;
      new client.Gauge({
        name: 'countcentre_response_cache_bytes',
        help: 'Bytes of finished answers kept in the response cache.',
        registers,
        collect() {
          this.set(sources.responseCache().bytes);
        },
      });
      new client.Gauge({
        name: 'countcentre_response_cache_entries',
        help: 'Finished answers kept in the response cache.',
        registers,
        collect() {
          this.set(sources.responseCache().entries);
        },
      });
      new client.Gauge({
        name: 'countcentre_data_version_info',
        help: 'The dataset version served (the value is always 1).',
        labelNames: ['version'],
        registers,
        collect() {
          this.reset();
          const version = sources.datasetVersion();
          self.noteVersion(version);
          this.set({ version }, 1);
        },
      });
      new client.Gauge({
        name: 'countcentre_store',
        help: "The store's own figures: connections in use, idle and waited for (PostgreSQL), query workers busy and queued (embedded); offset-mark walks and the pages started from their marks.",
        labelNames: ['figure'],
        registers,
        collect() {
          this.reset();
          for (const [figure, value] of Object.entries(sources.storeStats())) this.set({ figure }, value);
        },
      });
      client.collectDefaultMetrics({ register: registry, prefix: 'countcentre_' });
      return registry;
    });
    return this.registry;
  }

  /** Counts a reload when the version served differs from the one last seen (at a scrape). */
  noteVersion(version: string): void {
    if (this.lastVersion !== null && this.lastVersion !== version) this.reloads += 1;
    this.lastVersion = version;
  }

  observe(action: string, status: number, seconds: number): void {
    const name = action || 'other';
    let figures = this.actions.get(name);
    if (!figures) {
      figures = { buckets: new Float64Array(BUCKETS.length + 1), sum: 0, byStatus: new Map() };
      this.actions.set(name, figures);
    }
    let bucket = 0;
    while (bucket < BUCKETS.length && seconds > BUCKETS[bucket]!) bucket++;
    figures.buckets[bucket]! += 1;
    figures.sum += seconds;
    figures.byStatus.set(status, (figures.byStatus.get(status) ?? 0) + 1);
  }

  /** An answer in front of a portal, by where it came from, with the portal's latency when it was asked. */
  answeredFrom(source: string, portalSeconds: number | null = null): void {
    this.bySource.set(source, (this.bySource.get(source) ?? 0) + 1);
    if (portalSeconds === null) return;
    let bucket = 0;
    while (bucket < BUCKETS.length && portalSeconds > BUCKETS[bucket]!) bucket++;
    this.portal.buckets[bucket]! += 1;
    this.portal.sum += portalSeconds;
  }

  cacheHit(): void {
    this.hits += 1;
  }

  cacheMiss(): void {
    this.misses += 1;
  }

  /** The exposition format's content type (prom-client's Registry.PROMETHEUS_CONTENT_TYPE). */
  readonly contentType = 'text/plain; version=0.0.4; charset=utf-8';

  /** The request figures, written in the exposition format (as prom-client writes its own). */
  private requestFigures(): string {
    const lines = [
      '# HELP countcentre_requests_total API requests answered, by action (or route) and HTTP status.',
      '# TYPE countcentre_requests_total counter',
    ];
    for (const [action, figures] of this.actions) {
      for (const [status, count] of figures.byStatus)
        lines.push(`countcentre_requests_total{action="${label(action)}",status="${status}"} ${count}`);
    }
    lines.push(
      "# HELP countcentre_request_duration_seconds Time from a request's arrival to its answer being handed to the socket, by action.",
      '# TYPE countcentre_request_duration_seconds histogram',
    );
    for (const [action, figures] of this.actions) {
      let cumulative = 0;
      BUCKETS.forEach((le, i) => {
        cumulative += figures.buckets[i]!;
        lines.push(`countcentre_request_duration_seconds_bucket{le="${le}",action="${label(action)}"} ${cumulative}`);
      });
      cumulative += figures.buckets[BUCKETS.length]!;
      lines.push(`countcentre_request_duration_seconds_bucket{le="+Inf",action="${label(action)}"} ${cumulative}`);
      lines.push(`countcentre_request_duration_seconds_sum{action="${label(action)}"} ${figures.sum}`);
      lines.push(`countcentre_request_duration_seconds_count{action="${label(action)}"} ${cumulative}`);
    }
    lines.push(
      '# HELP countcentre_response_cache_lookups_total Response cache lookups: hit (answered from memory), miss (computed).',
      '# TYPE countcentre_response_cache_lookups_total counter',
      `countcentre_response_cache_lookups_total{result="hit"} ${this.hits}`,
      `countcentre_response_cache_lookups_total{result="miss"} ${this.misses}`,
      '# HELP countcentre_data_reloads_total Versions of the data this process switched to after starting.',
      '# TYPE countcentre_data_reloads_total counter',
      `countcentre_data_reloads_total ${this.reloads}`,
    );
    if (this.bySource.size > 0) {
      lines.push(
        "# HELP countcentre_portal_answers_total Answers in front of a portal, by where they came from: copy (the store), cache (the portal's answer kept), revalidated (kept, confirmed by the portal), stale (kept, the portal down), portal (asked now).",
        '# TYPE countcentre_portal_answers_total counter',
      );
      for (const [source, count] of this.bySource)
        lines.push(`countcentre_portal_answers_total{source="${label(source)}"} ${count}`);
      lines.push(
        '# HELP countcentre_portal_latency_seconds Time the portal took to answer a request passed to it (to its headers).',
        '# TYPE countcentre_portal_latency_seconds histogram',
      );
      let cumulative = 0;
      BUCKETS.forEach((le, i) => {
        cumulative += this.portal.buckets[i]!;
        lines.push(`countcentre_portal_latency_seconds_bucket{le="${le}"} ${cumulative}`);
      });
      cumulative += this.portal.buckets[BUCKETS.length]!;
      lines.push(`countcentre_portal_latency_seconds_bucket{le="+Inf"} ${cumulative}`);
      lines.push(`countcentre_portal_latency_seconds_sum ${this.portal.sum}`);
      lines.push(`countcentre_portal_latency_seconds_count ${cumulative}`);
    }
    return lines.join('\n') + '\n';
  }

  async render(): Promise<string> {
    const collected = await (await this.metricsRegistry()).metrics();
    return this.requestFigures() + collected;
  }
}
