// Every setting of the service, declared once with its environment variable, type, default and meaning.
// docs/configuration.md is checked against this table by a test, so the two cannot drift apart.

import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: relative paths in settings are resolved against it, not the caller's cwd. */
export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

type SettingType = 'integer' | 'string' | 'path' | 'url' | 'path-or-url' | 'enum';

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
    env: 'PORT', type: 'integer', default: 5000, min: 0, max: 65535,
    description: 'TCP port the HTTP server listens on.',
  }),
  host: declare<string>({
    env: 'HOST', type: 'string', default: '127.0.0.1',
    description: 'Interface the HTTP server binds to. Use 0.0.0.0 to accept connections from other machines.',
  }),
  sources: declare<string>({
    env: 'COUNTCENTRE_SOURCES', type: 'path-or-url', default: '../shared/data',
    description: 'Folder or base URL the catalogue\'s source files are read from. A relative path is resolved against the repository root.',
  }),
  catalog: declare<string>({
    env: 'COUNTCENTRE_CATALOG', type: 'path', default: 'catalog.json',
    description: 'The catalogue file: datasets, resources, source files and field mappings.',
  }),
  databasePath: declare<string>({
    env: 'COUNTCENTRE_DB', type: 'path', default: 'var/countcentre.sqlite',
    description: 'Location of the embedded database file. It is rebuilt when missing or when a source file or the catalogue changes.',
  }),
  siteUrl: declare<string | null>({
    env: 'SITE_URL', type: 'url', default: null,
    description: 'Public base URL used in the `help` link of every response (CKAN\'s ckan.site_url). When unset, it is taken from the request\'s Host header.',
  }),
  locale: declare<string>({
    env: 'CKAN_LOCALE', type: 'string', default: 'en',
    description: 'Locale segment of the `help` link (`{site_url}/{locale}/api/3/action/help_show?...`). Actions are also served under `/{locale}/api/...`.',
  }),
  rowsDefault: declare<number>({
    env: 'COUNTCENTRE_ROWS_DEFAULT', type: 'integer', default: 100, min: 0,
    description: 'Page size when a request gives no `limit` (CKAN\'s ckan.datastore.search.rows_default).',
  }),
  rowsMax: declare<number>({
    env: 'COUNTCENTRE_ROWS_MAX', type: 'integer', default: 32000, min: 1,
    description: 'Largest page size; a larger `limit` is silently lowered to it (CKAN\'s ckan.datastore.search.rows_max).',
  }),
  ftsLanguage: declare<string>({
    env: 'COUNTCENTRE_FTS_LANGUAGE', type: 'string', default: 'english',
    description: 'Text search configuration used for `q` when a request gives no `language` (CKAN\'s ckan.datastore.default_fts_lang).',
  }),
  cacheControl: declare<string>({
    env: 'COUNTCENTRE_CACHE_CONTROL', type: 'string', default: 'public, max-age=0, must-revalidate',
    description: 'Cache-Control header of every API and dump response (CKAN\'s default). Answers only change when the data is reloaded, and every one carries an ETag, so caches can revalidate cheaply; a CDN may be given a longer max-age.',
  }),
  logLevel: declare<string>({
    env: 'LOG_LEVEL', type: 'enum', default: 'info', choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    description: 'Log level of the JSON (pino) logs written to standard output.',
  }),
} as const;

type Specs = typeof SETTING_SPECS;
export type Settings = { -readonly [K in keyof Specs]: Specs[K]['default'] };

export class SettingsError extends Error {}

function parseValue(name: string, spec: SettingSpec<unknown>, raw: string): unknown {
  switch (spec.type) {
    case 'integer': {
      if (!/^\s*\d+\s*$/.test(raw)) throw new SettingsError(`${name} must be a whole number, got ${JSON.stringify(raw)}`);
      const value = Number(raw);
      if (spec.min !== undefined && value < spec.min) throw new SettingsError(`${name} must be at least ${spec.min}`);
      if (spec.max !== undefined && value > spec.max) throw new SettingsError(`${name} must be at most ${spec.max}`);
      return value;
    }
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
    case 'path':
      return path.resolve(PROJECT_ROOT, raw);
    case 'path-or-url':
      return /^https?:\/\//i.test(raw) ? raw : path.resolve(PROJECT_ROOT, raw);
    case 'string':
      return raw;
  }
}

/** Reads settings from an environment, applying defaults; `overrides` (used by tests) win over both. */
export function loadSettings(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Settings> = {}): Settings {
  const settings: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(SETTING_SPECS) as [string, SettingSpec<unknown>][]) {
    const raw = env[spec.env];
    if (raw !== undefined && raw !== '') {
      settings[key] = parseValue(spec.env, spec, raw);
    } else if (typeof spec.default === 'string' && (spec.type === 'path' || spec.type === 'path-or-url')) {
      settings[key] = parseValue(spec.env, spec, spec.default);
    } else {
      settings[key] = spec.default;
    }
  }
  const result = { ...(settings as Settings), ...overrides };
  if (result.rowsDefault > result.rowsMax) {
    throw new SettingsError(`COUNTCENTRE_ROWS_DEFAULT (${result.rowsDefault}) must not exceed COUNTCENTRE_ROWS_MAX (${result.rowsMax})`);
  }
  return result;
}
