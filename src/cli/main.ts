// `count-centre`: one program for everything a publisher does — serve, load, add a file, mirror a CKAN portal —
// with --help on every command and --version. Exit codes are documented in USAGE (and docs/configuration.md).

import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { pino } from 'pino';
import { EMPTY_CATALOG, renderCatalogJson } from '../catalog/edit.js';
import { CatalogError } from '../catalog/load.js';
import { CkanError } from '../portal/client.js';
import { LoadError } from '../ingest/csv.js';
import { NotATableError } from '../ingest/readers/sniff.js';
import { createLogger } from '../logging.js';
import { runServer } from '../serve.js';
import { loadSettings, SettingsError, type Settings } from '../settings.js';
import { COUNT_CENTRE_VERSION } from '../version.js';
import { EXIT } from './exit-codes.js';
import { AddUsageError, planAdd, SAMPLE_ROWS, schemaReport, writeCatalog, type AddRequest } from './add.js';
import { loadExitCode, loadReport, runLoad, type LoadRun } from './load.js';
import { planMirror } from './mirror.js';
import { InferenceProgress, textTable } from './progress.js';

export { EXIT };

const INDEX_NOTE = `A resource is served as soon as its records are in, with its key and full-text index; the field
indexes are then built on the published data, and the command ends when they are in (it prints both times).
  --defer-indexes     leave those indexes to a serving process (count-centre serve builds them as it starts)`;

const COMMON_OPTIONS = `Options every command takes:
  --catalog FILE      the catalogue (COUNTCENTRE_CATALOG, default catalog.json)
  --sources DIR|URL   where the catalogue's files are (COUNTCENTRE_SOURCES, default data/sources)
  --db FILE           the embedded store (COUNTCENTRE_DB); with DATABASE_URL set, PostgreSQL is used instead
  -h, --help          this help`;

const EXIT_CODES = `Exit codes: 0 done; 1 a resource could not be loaded (it keeps its previous data, or is not served);
2 wrong command line; 3 a file, the catalogue or a setting cannot be read (the message names the file, line and
column); 4 a CKAN portal could not be reached or refused (a mirrored resource keeps its previous data).`;

const USAGE = `Usage: count-centre <command> [options]

Publish tables through CKAN's DataStore API.

Commands:
  serve                  load what changed, then serve the API (what npm start does)
  load                   bring the store up to date with the catalogue: files, derivations, mirrors
  add FILE|URL           publish a CSV: infer its schema, add it to the catalogue, load it
  mirror URL ID…         mirror datasets or resources of a CKAN portal, and keep them fresh

Run count-centre <command> --help for a command's options.
  --version              print the version

${EXIT_CODES}`;

const HELP: Record<string, string> = {
  serve: `Usage: count-centre serve [--workers N] [--port N] [--host ADDRESS]

Brings the store up to date with the catalogue (unless COUNTCENTRE_LOAD_ON_START=false), then serves the API on
HOST:PORT (default 127.0.0.1:5000). A running server picks up loads made by other processes within seconds, and
refreshes mirrored resources every COUNTCENTRE_MIRROR_REFRESH_SECONDS.

  --workers N         API processes sharing the port (WORKERS)
  --port N            TCP port (PORT)
  --host ADDRESS      interface to listen on (HOST)
${COMMON_OPTIONS}`,
  load: `Usage: count-centre load [--force]

Loads the catalogue's resources into the store: a resource whose files, derivation or catalogue entry changed is read
again; a mirrored resource is probed and, if its portal changed, copied and verified. Everything is published at
once; a resource that fails keeps its previous data. Progress is shown on a terminal, logged every few seconds
otherwise; a table sums up at the end.

  --force             reload every resource
${INDEX_NOTE}
${COMMON_OPTIONS}

${EXIT_CODES}`,
  add: `Usage: count-centre add FILE|URL [options]

Publishes a table file. Finds out what it is from its content (then its name): delimited text (comma, semicolon, tab,
pipe or space; UTF-8 with or without BOM, UTF-16 with a BOM, or Windows-1252; any line endings; title lines above the
header skipped, "#" comment lines too, a header written as a comment (numpy's "# x y z"), or no header at all; short
rows padded), JSON (an array of objects, an object holding one, CKAN's dumps, pandas' DataFrame.to_json in any orient,
GeoJSON), NDJSON, an Excel .xlsx workbook or Parquet, also gzip-compressed or alone in a ZIP archive. Reads it once to
infer each column's type (int4, int8, numeric, date, timestamp, bool or text; leading zeros kept as text; thousands
separators and decimal commas read as numbers; NA, #N/A, .., - and other missing-value marks empty in a column of
numbers or dates), prints every decision with the line that decided it, writes the resource into the catalogue and loads
it. A running server serves it within seconds. Adding the same file again updates its entry.

  --dataset NAME        the dataset to add it to (created if new; default: from the file name)
  --title TEXT          the resource's name (and the new dataset's title)
  --description TEXT    what the table holds (the resource's description, and a new dataset's notes)
  --id UUID             the resource id (default: a new UUID)
  --license ID          the dataset's licence, by CKAN licence id (cc-by, cc-by-sa, cc-zero, odc-odbl, CC-BY-4.0, …)
  --attribution TEXT    what the licence requires users to credit
  --source-url URL      where the data comes from (the dataset's Source)
  --header-row N        the header's line, when the one found is not it; 0 for a file with no header (columns
                        named Column 1, Column 2, …)
  --quotes csv|literal  whether a quote at the start of a field quotes it (csv) or is a character (literal: tab- and
                        pipe-separated files that never quote); found from the file when not given
  --escapes backslash|none
                        whether the file is PostgreSQL's or MySQL's text format (\\N for an empty cell, backslash
                        escapes); found from the file (a cell \\N in a tab-separated file) when not given
  --nulls NULL|empty    whether a cell that is exactly NULL is an empty cell, as SQL tools' exports write one (NULL),
                        or the word (empty); found from the file when not given
  --leading-spaces skip|keep
                        whether the spaces after each delimiter are the separator's (skip: a file separated by ", ")
                        or the cells' (keep); found from the file when not given
  --comments MARK|none  the mark comment lines start with ("#"): lines below the header that start with it are left
                        out; found from the file (lines above the header that all start with "#") when not given
  --delimiter C         the delimiter, when the one found is not it (\\t for tab)
  --decimal , or .      the decimal mark of numbers that read both ways ("1,234")
  --date-format F       DD/MM/YYYY or MM/DD/YYYY, for dates whose days are all 12 or less
  --sheet NAME          the worksheet of an Excel workbook (default: the first)
  --dry-run             print what was found and the entry; change nothing
${INDEX_NOTE}
${COMMON_OPTIONS}

${EXIT_CODES}`,
  mirror: `Usage: count-centre mirror BASE_URL DATASET_OR_RESOURCE_ID... [--dataset NAME] [--token-env VARIABLE] [--dry-run]
       count-centre mirror BASE_URL --all [--organization NAME]... [--exclude-organization NAME]... [--max-rows N]

Mirrors a CKAN portal's DataStore resources through its public API: adds a catalogue entry per resource (its upstream
id, fields, types and data dictionary), copies its records (from the portal's DataStore dump in one request, else a
page at a time; upstream _ids kept; a few requests at a time at most), verifies the copy against the portal, and
publishes it. 'load' (and a serving process, on an interval) refreshes it: a cheap probe first, a new verified copy
when something changed and has settled (COUNTCENTRE_MIRROR_SETTLE_SECONDS); the last complete copy keeps serving
while the portal is reloading, private or failing.

With --all, every DataStore resource an anonymous user can read (package_search, page by page) is mirrored, and
the catalogue names the portal: 'serve' then stands in front of it, answering the DataStore from the copy and passing
every other request to the portal (docs/operations.md, "In front of a whole portal").

  --all                        the whole portal
  --organization NAME          only this organisation's datasets (repeatable)
  --exclude-organization NAME  not this organisation's datasets (repeatable)
  --max-rows N                 leave resources of more than N records to the portal
  --dataset NAME      the dataset name here (default: the portal's)
  --token-env VAR     the environment variable holding an API token for the portal (sent over HTTPS only)
  --dry-run           print what would be mirrored; change nothing
${INDEX_NOTE}
${COMMON_OPTIONS}

${EXIT_CODES}`,
};

class UsageError extends Error {}

function parse(
  command: string,
  args: string[],
  options: ParseArgsConfig['options'],
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        ...options,
        catalog: { type: 'string' },
        sources: { type: 'string' },
        db: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nRun count-centre ${command} --help for its options.`);
  }
}

/** A path given on the command line is the working directory's, as a publisher typing it means. */
const fromHere = (value: string) => (/^https?:\/\//i.test(value) ? value : path.resolve(value));

function settingsFrom(values: Record<string, unknown>, extra: Record<string, string> = {}): Settings {
  const env = { ...process.env, ...extra };
  if (typeof values.catalog === 'string') env.COUNTCENTRE_CATALOG = fromHere(values.catalog);
  if (typeof values.sources === 'string') env.COUNTCENTRE_SOURCES = fromHere(values.sources);
  if (typeof values.db === 'string') env.COUNTCENTRE_DB = fromHere(values.db);
  return loadSettings(env);
}

const out = process.stdout;
const say = (text: string) => out.write(text.endsWith('\n') ? text : `${text}\n`);

async function serve(args: string[]): Promise<number | null> {
  const { values } = parse('serve', args, {
    workers: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
  });
  if (values.help) return (say(HELP.serve!), EXIT.ok);
  const extra: Record<string, string> = {};
  if (typeof values.workers === 'string') extra.WORKERS = values.workers;
  if (typeof values.port === 'string') extra.PORT = values.port;
  if (typeof values.host === 'string') extra.HOST = values.host;
  const settings = settingsFrom(values, extra);
  await runServer(settings, createLogger(settings));
  // The server runs until it is stopped.
  return null;
}

/**
 * The loader's own log lines: warnings and above on a terminal, unless LOG_LEVEL asks for more (progress has its own
 * display); as readable lines, never JSON, unless LOG_FORMAT=json asks for it, so a command's output reads as one.
 * `quietAbout`: a resource whose errors are not logged, because the command explains them itself (a load it retries,
 * or its summary table, which notes each resource's error), so that a failure it recovers from is not first shown as
 * an ERROR line.
 */
function loadLogger(settings: Settings, quietAbout: string | null = null) {
  const logFormat = settings.logFormat === 'json' ? 'json' : 'pretty';
  return createLogger(
    { ...settings, logFormat },
    {
      level: settings.logLevel === 'info' && out.isTTY ? 'warn' : settings.logLevel,
      out: process.stderr,
      ...(quietAbout === null
        ? {}
        : {
            drop: (level, facts) =>
              level >= pino.levels.values.error! &&
              level < pino.levels.values.fatal! &&
              facts['resource'] === quietAbout,
          }),
    },
  );
}

async function load(args: string[]): Promise<number> {
  const { values } = parse('load', args, { force: { type: 'boolean' }, 'defer-indexes': { type: 'boolean' } });
  if (values.help) return (say(HELP.load!), EXIT.ok);
  const settings = settingsFrom(values);
  const run = await runLoad(settings, {
    force: values.force === true,
    out,
    logger: loadLogger(settings),
    deferIndexes: values['defer-indexes'] === true,
  });
  say(loadReport(run));
  return loadExitCode(run.result);
}

async function add(args: string[]): Promise<number> {
  const { values, positionals } = parse('add', args, {
    dataset: { type: 'string' },
    title: { type: 'string' },
    id: { type: 'string' },
    'date-format': { type: 'string' },
    'dry-run': { type: 'boolean' },
    description: { type: 'string' },
    license: { type: 'string' },
    attribution: { type: 'string' },
    'source-url': { type: 'string' },
    'header-row': { type: 'string' },
    quotes: { type: 'string' },
    escapes: { type: 'string' },
    nulls: { type: 'string' },
    'leading-spaces': { type: 'string' },
    comments: { type: 'string' },
    delimiter: { type: 'string' },
    decimal: { type: 'string' },
    sheet: { type: 'string' },
    'defer-indexes': { type: 'boolean' },
  });
  if (values.help) return (say(HELP.add!), EXIT.ok);
  if (positionals.length !== 1)
    throw new UsageError('add takes one FILE or URL\nRun count-centre add --help for its options.');
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const dateFormat = text('date-format');
  if (dateFormat !== undefined && dateFormat !== 'DD/MM/YYYY' && dateFormat !== 'MM/DD/YYYY')
    throw new UsageError('--date-format must be DD/MM/YYYY or MM/DD/YYYY');
  const decimal = text('decimal');
  if (decimal !== undefined && decimal !== ',' && decimal !== '.') throw new UsageError('--decimal must be , or .');
  const quotes = text('quotes');
  if (quotes !== undefined && quotes !== 'csv' && quotes !== 'literal')
    throw new UsageError('--quotes must be csv or literal');
  const nulls = text('nulls');
  if (nulls !== undefined && nulls !== 'NULL' && nulls !== 'empty')
    throw new UsageError('--nulls must be NULL or empty');
  const leadingSpaces = text('leading-spaces');
  if (leadingSpaces !== undefined && leadingSpaces !== 'skip' && leadingSpaces !== 'keep')
    throw new UsageError('--leading-spaces must be skip or keep');
  const comments = text('comments');
  if (comments !== undefined && (comments === '' || /\s/.test(comments)))
    throw new UsageError('--comments must be the mark comment lines start with, such as "#", or none');
  const escapes = text('escapes');
  if (escapes !== undefined && escapes !== 'none' && escapes !== 'backslash')
    throw new UsageError('--escapes must be backslash or none');
  const headerRow = text('header-row') === undefined ? undefined : Number(text('header-row'));
  if (headerRow !== undefined && !(Number.isInteger(headerRow) && headerRow >= 0))
    throw new UsageError('--header-row must be a line number, 1 or more (0: the file has no header)');
  const delimiter = text('delimiter')?.replace(/^\\t$/, '\t');
  if (delimiter !== undefined && [...delimiter].length !== 1)
    throw new UsageError('--delimiter must be one character (\\t for tab)');
  const settings = settingsFrom(values);
  const request: AddRequest = {
    source: positionals[0]!,
    dataset: text('dataset'),
    title: text('title'),
    id: text('id'),
    description: text('description'),
    license: text('license'),
    attribution: text('attribution'),
    sourceUrl: text('source-url'),
    sheet: text('sheet'),
    delimiter,
    headerRow,
    dateFormat: dateFormat as AddRequest['dateFormat'],
    decimal: decimal as AddRequest['decimal'],
    quotes: quotes as AddRequest['quotes'],
    escapes: escapes as AddRequest['escapes'],
    nulls: nulls as AddRequest['nulls'],
    leadingSpaces: leadingSpaces as AddRequest['leadingSpaces'],
    comments,
  };
  const plan = async (sampleRows: number) => {
    const progress = new InferenceProgress(out.isTTY ? out : null, path.basename(request.source));
    try {
      return await planAdd(request, settings, (rows) => progress.rows(rows), sampleRows);
    } catch (err) {
      if (err instanceof AddUsageError) throw new UsageError(err.message);
      throw err;
    } finally {
      progress.end();
    }
  };
  // A dry run reads the whole file: what it prints is what every row says. A real one reads the first rows, then
  // checks every row as it loads, and reads the whole file only if a later row does not fit.
  let added = await plan(values['dry-run'] ? Infinity : SAMPLE_ROWS);
  say(schemaReport(added));
  if (values['dry-run']) {
    say(
      `Catalogue entry (dataset ${added.datasetName}), not written (--dry-run):\n\n${renderCatalogJson(added.resource)}\n`,
    );
    return EXIT.ok;
  }
  let run: LoadRun;
  for (;;) {
    writeCatalog(settings.catalog, added.catalogText);
    say(
      `${added.replaces ? 'Updated' : 'Added'} resource ${added.resource.id} in dataset ${added.datasetName} (${path.basename(settings.catalog)}).\n`,
    );
    // A load on types from the first rows is retried, with types from every row, if a later row does not fit them: the
    // failure is explained then, or else in the summary, so it is not also logged.
    run = await runLoad(settings, {
      out,
      logger: loadLogger(settings, added.schema.sampled ? added.resource.id : null),
      deferIndexes: values['defer-indexes'] === true,
    });
    const outcome = run.result.outcomes.find((o) => o.id === added.resource.id);
    if (outcome?.status === 'failed' && added.schema.sampled) {
      say(
        `A record beyond the first ${added.schema.rows.toLocaleString('en-IE')} did not fit what they showed: ${outcome.error}\nReading the whole file to decide again.\n`,
      );
      const previous = added.previousText;
      added = { ...(await plan(Infinity)), previousText: previous };
      say(schemaReport(added));
      continue;
    }
    break;
  }
  say(loadReport(run));
  const outcome = run.result.outcomes.find((o) => o.id === added.resource.id);
  if (!outcome || outcome.status === 'failed') {
    // A resource that cannot be loaded is not left in the catalogue.
    writeCatalog(settings.catalog, added.previousText ?? EMPTY_CATALOG);
    say(`The new resource could not be loaded; the catalogue is as it was.`);
    return EXIT.badInput;
  }
  say(`Served at /api/3/action/datastore_search?resource_id=${added.resource.id}`);
  return loadExitCode(run.result);
}

async function mirror(args: string[]): Promise<number> {
  const { values, positionals } = parse('mirror', args, {
    dataset: { type: 'string' },
    'token-env': { type: 'string' },
    'dry-run': { type: 'boolean' },
    'defer-indexes': { type: 'boolean' },
    all: { type: 'boolean' },
    organization: { type: 'string', multiple: true },
    'exclude-organization': { type: 'string', multiple: true },
    'max-rows': { type: 'string' },
  });
  if (values.help) return (say(HELP.mirror!), EXIT.ok);
  const all = values.all === true;
  if (all ? positionals.length !== 1 : positionals.length < 2)
    throw new UsageError(
      all
        ? "mirror --all takes the portal's URL alone\nRun count-centre mirror --help for its options."
        : "mirror takes the portal's URL and one or more dataset names or resource ids (or --all)\nRun count-centre mirror --help for its options.",
    );
  if (!all && (values.organization || values['exclude-organization'] || values['max-rows'] !== undefined))
    throw new UsageError('--organization, --exclude-organization and --max-rows go with --all');
  const maxRows = values['max-rows'] === undefined ? null : String(values['max-rows']);
  if (maxRows !== null && !/^\d+$/.test(maxRows)) throw new UsageError('--max-rows takes a whole number');
  const settings = settingsFrom(values);
  const [portal, ...ids] = positionals as [string, ...string[]];
  const plan = await planMirror(
    {
      portal,
      ids,
      contact: settings.mirrorContact,
      client: { concurrency: settings.mirrorConcurrency },
      ...(typeof values.dataset === 'string' ? { dataset: values.dataset } : {}),
      ...(typeof values['token-env'] === 'string' ? { tokenEnv: values['token-env'] } : {}),
      ...(all
        ? {
            all: {
              organizations: (values.organization as string[] | undefined) ?? [],
              excludeOrganizations: (values['exclude-organization'] as string[] | undefined) ?? [],
              maxRows: maxRows === null ? null : Number(maxRows),
            },
          }
        : {}),
    },
    settings.catalog,
  );
  say(
    `Portal ${plan.portal}${plan.ckanVersion ? ` (CKAN ${plan.ckanVersion})` : ''}${plan.datasets === undefined ? '' : `: ${plan.datasets} datasets readable by anyone`}\n`,
  );
  say(
    textTable(
      ['dataset', 'resource', 'name', 'fields', 'note'],
      plan.resources.map((r) => [r.dataset, r.id, r.name, String(r.fields.length), r.notes.join('; ')]),
    ),
  );
  for (const s of plan.skipped) say(`  skipped ${s.id} (${s.name}): ${s.why}`);
  if (plan.resources.length === 0) {
    say('Nothing to mirror.');
    return EXIT.portal;
  }
  if (values['dry-run']) return (say('\nNothing written (--dry-run).'), EXIT.ok);
  writeCatalog(settings.catalog, plan.catalogText);
  say(`\nCatalogue updated (${settings.catalog}); copying.\n`);
  const run = await runLoad(settings, {
    out,
    logger: loadLogger(settings),
    deferIndexes: values['defer-indexes'] === true,
  });
  say(loadReport(run));
  return loadExitCode(run.result);
}

export async function main(argv: string[]): Promise<number | null> {
  const [command, ...args] = argv;
  if (command === '--version' || command === '-v') return (say(COUNT_CENTRE_VERSION), EXIT.ok);
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    say(args[0] && HELP[args[0]] ? HELP[args[0]]! : USAGE);
    return command === undefined ? EXIT.usage : EXIT.ok;
  }
  switch (command) {
    case 'serve':
      return serve(args);
    case 'load':
      return load(args);
    case 'add':
      return add(args);
    case 'mirror':
      return mirror(args);
    default:
      throw new UsageError(`unknown command "${command}"\n\n${USAGE}`);
  }
}

/** The exit code for a failure, and its message as people read it. */
export function failure(err: unknown): { code: number; message: string } {
  if (err instanceof UsageError) return { code: EXIT.usage, message: err.message };
  if (
    err instanceof LoadError ||
    err instanceof CatalogError ||
    err instanceof SettingsError ||
    err instanceof NotATableError
  )
    return { code: EXIT.badInput, message: err.message };
  if (err instanceof CkanError) return { code: EXIT.portal, message: `portal: ${err.message}` };
  const message = err instanceof Error ? err.message : String(err);
  // Files that cannot be read are named by their path in the message.
  if (/: (file not found|download failed)/.test(message)) return { code: EXIT.badInput, message };
  return { code: EXIT.resourceFailed, message };
}

/** Runs a command line and sets the process's exit code (a server keeps running until it is stopped). */
export function run(argv: string[]): void {
  main(argv).then(
    (code) => {
      if (code !== null) process.exit(code);
    },
    (err: unknown) => {
      const { code, message } = failure(err);
      process.stderr.write(`count-centre: ${message}\n`);
      process.exit(code);
    },
  );
}
