// Every setting of the service, declared once with its environment variable, type, default and meaning.
// docs/configuration.md is checked against this table by a test, so the two cannot drift apart.

import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: relative paths in settings are resolved against it, not the caller's cwd. */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

type SettingType =
  'integer' | 'boolean' | 'string' | 'path' | 'url' | 'path-or-url' | 'enum' | 'postgres-url' | 'postgres-urls';

interface SettingSpec<T> {
  env: string;
  type: SettingType;
  default: T;
  description: string;
  choices?: readonly string[];
  min?: number;
  max?: number;
}

function declare<T>(spec: SettingSpec<T>): SettingSpec<T> {
  return spec;
}

export const SETTING_SPECS = {
  port: declare<number>({
    env: 'PORT',
    type: 'integer',
    default: 5000,
    min: 0,
    max: 65535,
    description: 'TCP port the HTTP server listens on.',
  }),
  host: declare<string>({
    env: 'HOST',
    type: 'string',
    default: '127.0.0.1',
    description: 'Interface the HTTP server binds to. Use 0.0.0.0 to accept connections from other machines.',
  }),
  sources: declare<string>({
    env: 'COUNTCENTRE_SOURCES',
    type: 'path-or-url',
    default: 'data/sources',
    description:
      "Folder or base URL the catalogue's source files are read from. A relative path is resolved against the repository root.",
  }),
  catalog: declare<string>({
    env: 'COUNTCENTRE_CATALOG',
    type: 'path',
    default: 'catalog.json',
    description: 'The catalogue file: datasets, resources, source files and field mappings.',
  }),
  databasePath: declare<string>({
    env: 'COUNTCENTRE_DB',
    type: 'path',
    default: 'var/countcentre.sqlite',
    description:
      'Location of the embedded database file. It is rebuilt when missing or when a source file or the catalogue changes.',
  }),
  databaseUrl: declare<string | null>({
    env: 'DATABASE_URL',
    type: 'postgres-url',
    default: null,
    description:
      'postgres://user:password@host:port/database selects PostgreSQL as the store; without it the embedded SQLite file is used. The loader writes with this connection.',
  }),
  databaseReadUrls: declare<string[]>({
    env: 'DATABASE_READ_URLS',
    type: 'postgres-urls',
    default: [],
    description:
      'Comma-separated postgres:// URLs of read replicas. Reads are spread across them and fall back to DATABASE_URL when a replica cannot be reached.',
  }),
  pgSchema: declare<string>({
    env: 'COUNTCENTRE_PG_SCHEMA',
    type: 'string',
    default: 'public',
    description:
      "PostgreSQL schema where each resource appears, by its id, as a view of CKAN's columns: what datastore_search_sql reads, as in CKAN's DataStore.",
  }),
  pgDataSchema: declare<string>({
    env: 'COUNTCENTRE_PG_DATA_SCHEMA',
    type: 'string',
    default: 'countcentre',
    description:
      'PostgreSQL schema holding the resource tables themselves, with their indexes, and the catalogue tables.',
  }),
  pgReaderRole: declare<string>({
    env: 'COUNTCENTRE_PG_READER_ROLE',
    type: 'string',
    default: 'countcentre_reader',
    description:
      'Role the loader creates with SELECT on the resource tables only; reads run as it when the login role is a member.',
  }),
  pgPoolSize: declare<number>({
    env: 'COUNTCENTRE_PG_POOL_SIZE',
    type: 'integer',
    default: 10,
    min: 1,
    max: 1000,
    description:
      'Most connections each API process opens for queries per database (primary or replica); datastore_search_sql has its own pool of at most half as many beside it, and on the primary up to two more serve bookkeeping and one hears of loads.',
  }),
  pgLoadSplitRows: declare<number>({
    env: 'COUNTCENTRE_PG_LOAD_SPLIT_ROWS',
    type: 'integer',
    default: 200000,
    min: 0,
    description:
      'Records after which a PostgreSQL load copies the rest of a resource over a second connection into a second table, which the first then reads as its own (inheritance): two server processes share the storing of the rows and the full-text index builds. 0 copies every resource over one connection.',
  }),
  pgLoadHelperRows: declare<number>({
    env: 'COUNTCENTRE_PG_LOAD_HELPER_ROWS',
    type: 'integer',
    default: 50000,
    min: 0,
    description:
      "Records after which a PostgreSQL load also makes its COPY lines (the values' text and each row's full-text vector) on a helper thread, beside the thread that reads the file: the two share two cores, and the loading process's young generation is halved (32 MB semi-spaces, one per thread). Smaller resources are made on the reading thread alone, without starting one. 0 never starts it (and keeps 64 MB for the one thread).",
  }),
  searchTimeoutMs: declare<number>({
    env: 'COUNTCENTRE_SEARCH_TIMEOUT_MS',
    type: 'integer',
    default: 30000,
    min: 1,
    description:
      'Longest a datastore_search query may run before it is cancelled and answered 409 "Search took too long".',
  }),
  sqlTimeoutMs: declare<number>({
    env: 'COUNTCENTRE_SQL_TIMEOUT_MS',
    type: 'integer',
    default: 1000,
    min: 1,
    description:
      'Longest a datastore_search_sql statement may run before it is cancelled and answered 409 "Query took too long".',
  }),
  indexBuilds: declare<boolean>({
    env: 'COUNTCENTRE_INDEX_BUILDS',
    type: 'boolean',
    default: true,
    description:
      "Whether this process builds the indexes a load leaves to be built once it is published (the catalogue's field and composite indexes, and those searches ask for), in the background while it serves. Several processes may: one builds at a time.",
  }),
  indexOnDemandRows: declare<number>({
    env: 'COUNTCENTRE_INDEX_ON_DEMAND_ROWS',
    type: 'integer',
    default: 10000,
    min: 0,
    description:
      "A search that filters or sorts on a field without an index, in a resource of more records than this, asks for an index on that field, which is built in the background (0: never); one that sorts by a field also asks for the field's sort index in that direction where the store's own index is not the page's order (descending on either store, ascending on PostgreSQL: see docs/architecture.md). Smaller resources are quick to search without one, and most are resident tables (COUNTCENTRE_RESIDENT_ROWS).",
  }),
  offsetMarkEvery: declare<number>({
    env: 'COUNTCENTRE_OFFSET_MARK_EVERY',
    type: 'integer',
    default: 500,
    min: 0,
    description:
      "A page this many records or more into a sorted search (of a resource of up to 10,000,000 records) starts from a remembered record near its offset instead of stepping over every record before it: the first such page walks the order once and remembers every this-many-th record's keys (at most 2,000 an order, spaced further apart in larger resources), for as long as the data is unchanged (0: never).",
  }),
  loadOnStart: declare<boolean>({
    env: 'COUNTCENTRE_LOAD_ON_START',
    type: 'boolean',
    default: true,
    description:
      'Whether `npm start` first brings the store up to date with the catalogue and sources. Set it to false for API processes that only serve a PostgreSQL store loaded elsewhere by `npm run load`; they need no source files and pick up each new load within seconds.',
  }),
  workers: declare<number>({
    env: 'WORKERS',
    type: 'integer',
    default: 1,
    min: 1,
    max: 256,
    description: 'Number of API processes on this machine, sharing the port (also `npm start -- --workers N`).',
  }),
  siteUrl: declare<string | null>({
    env: 'SITE_URL',
    type: 'url',
    default: null,
    description:
      "Public base URL used in the `help` link of every response (CKAN's ckan.site_url). When unset, it is taken from the request's Host header.",
  }),
  locale: declare<string>({
    env: 'CKAN_LOCALE',
    type: 'string',
    default: 'en',
    description:
      'Locale segment of the `help` link (`{site_url}/{locale}/api/3/action/help_show?...`). Actions are also served under `/{locale}/api/...`.',
  }),
  rowsDefault: declare<number>({
    env: 'COUNTCENTRE_ROWS_DEFAULT',
    type: 'integer',
    default: 100,
    min: 0,
    description: "Page size when a request gives no `limit` (CKAN's ckan.datastore.search.rows_default).",
  }),
  rowsMax: declare<number>({
    env: 'COUNTCENTRE_ROWS_MAX',
    type: 'integer',
    default: 32000,
    min: 1,
    description:
      "Largest page size; a larger `limit` is silently lowered to it (CKAN's ckan.datastore.search.rows_max).",
  }),
  ftsLanguage: declare<string>({
    env: 'COUNTCENTRE_FTS_LANGUAGE',
    type: 'string',
    default: 'english',
    description:
      "Text search configuration used for `q` when a request gives no `language` (CKAN's ckan.datastore.default_fts_lang).",
  }),
  msInTimestamp: declare<boolean>({
    env: 'COUNTCENTRE_MS_IN_TIMESTAMP',
    type: 'boolean',
    default: false,
    description:
      'Write timestamps in records and dumps with milliseconds (`YYYY-MM-DDTHH:MM:SS.mmm`), as CKAN 2.12 does by default (its ckan.datastore.ms_in_timestamp). The default, false, keeps `YYYY-MM-DDTHH:MM:SS`, as CKAN 2.10/2.11 and the service description give them.',
  }),
  cacheControl: declare<string>({
    env: 'COUNTCENTRE_CACHE_CONTROL',
    type: 'string',
    default: 'public, max-age=0, must-revalidate',
    description:
      "Cache-Control header of every API and dump response (CKAN's default). Answers only change when the data is reloaded, and every one carries an ETag, so caches can revalidate cheaply; a CDN may be given a longer max-age.",
  }),
  responseCacheMb: declare<number>({
    env: 'COUNTCENTRE_RESPONSE_CACHE_MB',
    type: 'integer',
    default: 32,
    min: 0,
    description:
      'Memory kept for finished answers, by entity tag, so that repeated requests are answered without running again (0 turns it off). Answers larger than a sixteenth of it are not kept. The web explorer keeps its rendered pages in a quarter as much again.',
  }),
  residentMb: declare<number>({
    env: 'COUNTCENTRE_RESIDENT_MB',
    type: 'integer',
    default: 48,
    min: 0,
    description:
      'Memory for resident tables: small resources read from the store on their first search and kept in memory with their orders and full-text postings, so that searches on them run no SQL (0 turns them off). The least recently searched go first when it is full. Dumps and datastore_search_sql always read the store.',
  }),
  residentRows: declare<number>({
    env: 'COUNTCENTRE_RESIDENT_ROWS',
    type: 'integer',
    default: 50000,
    min: 0,
    description:
      'Resources with more records than this are never resident: their searches run on the store, with its indexes.',
  }),
  logLevel: declare<string>({
    env: 'LOG_LEVEL',
    type: 'enum',
    default: 'info',
    choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    description: 'Log level of the logs written to standard output.',
  }),
  logFormat: declare<string>({
    env: 'COUNTCENTRE_LOG_FORMAT',
    type: 'enum',
    default: 'auto',
    choices: ['auto', 'pretty', 'json'],
    description:
      "How logs are written: `pretty` is one readable line per entry (local time, level, message, then key=value facts), `json` one JSON object per line (pino's, for log collectors); `auto` is pretty on a terminal and JSON otherwise.",
  }),
  mirrorRefreshSeconds: declare<number>({
    env: 'COUNTCENTRE_MIRROR_REFRESH_SECONDS',
    type: 'integer',
    default: 900,
    min: 0,
    description:
      'How often a serving process that loads (COUNTCENTRE_LOAD_ON_START) checks the portals of mirrored resources for changes and, when one changed, copies and publishes it; 0 turns it off. Checks are cheap (a few small requests per resource); `count-centre load` refreshes them too.',
  }),
  mirrorSettleSeconds: declare<number>({
    env: 'COUNTCENTRE_MIRROR_SETTLE_SECONDS',
    type: 'integer',
    default: 10,
    min: 0,
    description:
      "How long a mirror waits, after it sees a mirrored resource change in a way that may be a reload (a first copy, a new table, fewer records, changed fields, its loader at work, many blocks changed), before it looks again: only a change both looks agree on (and that the portal's xloader or DataPusher, where it says anything, reports complete) is copied, so that a table being reloaded in chunks is never published half-loaded; the last complete copy serves meanwhile. An append or an edit to the same table is patched at once. Make it longer than the longest pause a loader makes between chunks.",
  }),
  mirrorPatchMaxPercent: declare<number>({
    env: 'COUNTCENTRE_MIRROR_PATCH_MAX_PERCENT',
    type: 'integer',
    default: 10,
    min: 0,
    max: 100,
    description:
      "When a mirrored resource changes, only the blocks of records that changed are read again and patched into the store (appends, edits, deletions), as long as they hold at most this share of the table's records; past it, or when its fields changed, the table is copied whole. 0 always copies whole.",
  }),
  mirrorConcurrency: declare<number>({
    env: 'COUNTCENTRE_MIRROR_CONCURRENCY',
    type: 'integer',
    default: 2,
    min: 1,
    max: 3,
    description:
      'Requests a mirror sends to one portal at once (at most 3, as portals expect of a well-behaved client): resources are probed side by side within it.',
  }),
  mirrorProbeTimeoutSeconds: declare<number>({
    env: 'COUNTCENTRE_MIRROR_PROBE_TIMEOUT_SECONDS',
    type: 'integer',
    default: 60,
    min: 1,
    description:
      'Longest the check of one mirrored resource may take, retries included; a check that runs out of time counts as a failure of its portal, and the resource keeps its last copy until the next refresh.',
  }),
  mirrorContact: declare<string | null>({
    env: 'COUNTCENTRE_MIRROR_CONTACT',
    type: 'string',
    default: null,
    description:
      'A URL or e-mail address added to the User-Agent of the requests a mirror sends to a portal, so that its operators can reach whoever runs the mirror.',
  }),
  portalUrl: declare<string | null>({
    env: 'COUNTCENTRE_PORTAL_URL',
    type: 'url',
    default: null,
    description:
      "The CKAN portal Count Centre stands in front of: every request it does not answer from its copy (the portal's other actions, its pages and files, a resource it did not copy) is passed to this portal, and writes passed through are read back at once. Unset, it is the portal `count-centre mirror PORTAL --all` wrote into the catalogue, if any; otherwise nothing is passed through.",
  }),
  portalTimeoutSeconds: declare<number>({
    env: 'COUNTCENTRE_PORTAL_TIMEOUT_SECONDS',
    type: 'integer',
    default: 30,
    min: 1,
    description:
      "Longest the portal may take to start answering a request passed through, and the longest it may then go without sending a byte; past it the client gets CKAN's error envelope (504), or the last answer kept for an anonymous GET.",
  }),
  portalCacheSeconds: declare<number>({
    env: 'COUNTCENTRE_PORTAL_CACHE_SECONDS',
    type: 'integer',
    default: 60,
    min: 0,
    description:
      "How long an anonymous GET passed through to the portal is answered from memory before it is asked again (revalidated with the portal's ETag or Last-Modified when it gave one); a longer max-age from the portal wins. While the portal is down, the last answer kept is served however old. 0 keeps nothing.",
  }),
  portalCacheMb: declare<number>({
    env: 'COUNTCENTRE_PORTAL_CACHE_MB',
    type: 'integer',
    default: 64,
    min: 0,
    description:
      'Memory for answers passed through from the portal (least recently used first out); an answer larger than a sixteenth of it is passed on but not kept.',
  }),
  portalBodyLimitMb: declare<number>({
    env: 'COUNTCENTRE_PORTAL_BODY_MB',
    type: 'integer',
    default: 100,
    min: 1,
    description:
      "Largest request body passed through to the portal (a file upload to resource_create, say), streamed as it comes; a larger one is refused with CKAN's 413 envelope.",
  }),
  portalPollSeconds: declare<number>({
    env: 'COUNTCENTRE_PORTAL_POLL_SECONDS',
    type: 'integer',
    default: 60,
    min: 0,
    description:
      "In front of a whole portal (`count-centre mirror PORTAL --all`), how often a serving process that loads asks the portal which datasets changed (one package_search of those modified since the last poll, and package_list for those gone private or deleted), then copies, patches or withdraws only them; 0 turns it off. Every resource is still probed each COUNTCENTRE_MIRROR_REFRESH_SECONDS, for the DataStore writes that do not move a dataset's metadata_modified.",
  }),
  portalWriteWaitSeconds: declare<number>({
    env: 'COUNTCENTRE_PORTAL_WRITE_WAIT_SECONDS',
    type: 'integer',
    default: 30,
    min: 0,
    description:
      "A write passed through to the portal and accepted (a datastore_* write, a resource_* or package_* change) is copied at once; its answer is held until the copy has it, at most this long, so that the writer's next read sees it. 0 sends the answer at once and refreshes behind it.",
  }),
  explorerPath: declare<string | null>({
    env: 'COUNTCENTRE_EXPLORER_PATH',
    type: 'string',
    default: null,
    description:
      'Where the web explorer is served: `/` by default, `/explore/` in front of a portal, whose own pages keep `/`. A path such as `/explore/`.',
  }),
  requestLogLevel: declare<string>({
    env: 'COUNTCENTRE_REQUEST_LOG_LEVEL',
    type: 'enum',
    default: 'info',
    choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace'],
    description:
      'Level of the one log line written per API request (method, URL, status, time, bytes, action), errors included. With LOG_LEVEL above it (e.g. LOG_LEVEL=warn and this at info) requests are not logged.',
  }),
} as const;

type Specs = typeof SETTING_SPECS;
export type Settings = { -readonly [K in keyof Specs]: Specs[K]['default'] };

export class SettingsError extends Error {}

function checkedPostgresUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SettingsError(`${name} must be a postgres:// URL`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new SettingsError(`${name} must be a postgres:// URL, got ${url.protocol}`);
  return raw;
}

function parseValue(name: string, spec: SettingSpec<unknown>, raw: string): unknown {
  switch (spec.type) {
    case 'integer': {
      if (!/^\s*\d+\s*$/.test(raw))
        throw new SettingsError(`${name} must be a whole number, got ${JSON.stringify(raw)}`);
      const value = Number(raw);
      if (spec.min !== undefined && value < spec.min) throw new SettingsError(`${name} must be at least ${spec.min}`);
      if (spec.max !== undefined && value > spec.max) throw new SettingsError(`${name} must be at most ${spec.max}`);
      return value;
    }
    case 'boolean':
      if (/^(true|1|yes|on)$/i.test(raw.trim())) return true;
      if (/^(false|0|no|off)$/i.test(raw.trim())) return false;
      throw new SettingsError(`${name} must be true or false, got ${JSON.stringify(raw)}`);
    case 'enum':
      if (!spec.choices?.includes(raw)) throw new SettingsError(`${name} must be one of ${spec.choices?.join(', ')}`);
      return raw;
    case 'url':
      try {
        new URL(raw);
      } catch {
        throw new SettingsError(`${name} must be an absolute URL, got ${JSON.stringify(raw)}`);
      }
      return raw.replace(/\/+$/, '');
    case 'postgres-url':
      return checkedPostgresUrl(name, raw);
    case 'postgres-urls':
      return raw
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean)
        .map((u) => checkedPostgresUrl(name, u));
    case 'path':
      return path.resolve(PROJECT_ROOT, raw);
    case 'path-or-url':
      return /^https?:\/\//i.test(raw) ? raw : path.resolve(PROJECT_ROOT, raw);
    case 'string':
      return raw;
  }
}

/** One setting's value in an environment, or its default. */
function settingValue(spec: SettingSpec<unknown>, env: NodeJS.ProcessEnv): unknown {
  const raw = env[spec.env];
  if (raw !== undefined && raw !== '') return parseValue(spec.env, spec, raw);
  if (typeof spec.default === 'string' && (spec.type === 'path' || spec.type === 'path-or-url'))
    return parseValue(spec.env, spec, spec.default);
  return spec.default;
}

/** Reads one setting from an environment, as loadSettings does (for a process that needs it before the others). */
export function loadSetting<K extends keyof Settings>(key: K, env: NodeJS.ProcessEnv = process.env): Settings[K] {
  return settingValue(SETTING_SPECS[key] as SettingSpec<unknown>, env) as Settings[K];
}

/** Reads settings from an environment, applying defaults; `overrides` (used by tests) win over both. */
export function loadSettings(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Settings> = {}): Settings {
  const settings: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(SETTING_SPECS) as [string, SettingSpec<unknown>][])
    settings[key] = settingValue(spec, env);
  const result = { ...(settings as Settings), ...overrides };
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(result.pgSchema))
    throw new SettingsError('COUNTCENTRE_PG_SCHEMA must be a plain identifier');
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(result.pgDataSchema) || result.pgDataSchema === result.pgSchema) {
    throw new SettingsError('COUNTCENTRE_PG_DATA_SCHEMA must be a plain identifier, other than COUNTCENTRE_PG_SCHEMA');
  }
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(result.pgReaderRole))
    throw new SettingsError('COUNTCENTRE_PG_READER_ROLE must be a plain identifier');
  if (result.rowsDefault > result.rowsMax) {
    throw new SettingsError(
      `COUNTCENTRE_ROWS_DEFAULT (${result.rowsDefault}) must not exceed COUNTCENTRE_ROWS_MAX (${result.rowsMax})`,
    );
  }
  if (
    result.explorerPath !== null &&
    (!/^\/([A-Za-z0-9._~-]+\/)*$/.test(result.explorerPath) || /\/\.+\//.test(result.explorerPath))
  )
    throw new SettingsError('COUNTCENTRE_EXPLORER_PATH must be a path that starts and ends with /, such as /explore/');
  return result;
}
