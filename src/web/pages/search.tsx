// The search page (people, constituencies, parties and elections, every result reachable a page at a time, names spelt
// nearly alike offered where nothing matches exactly, and odd input answered in words), and the pages that list what
// an address's parent holds: every party across elections, every election, every table.

import type { CatalogResource } from '../../catalog/catalog.js';
import { formatDate, formatNumber, plural } from '../format.js';
import type { CandidacyLinks } from '../routes-together.js';
import type { ConstituencyHit, ElectionHit, PartyHit, PersonHit, SearchHit, SearchKind } from '../search.js';
import { Ga, PartyChip } from './layout.js';
import { CandidacyLine } from './people.js';

/** A list shown a page at a time: where this page starts and ends, and how to reach the others. */
export interface Paging {
  page: number;
  pages: number;
  /** The place of the page's first and last items in the whole list, from 1. */
  first: number;
  last: number;
  total: number;
  href: (page: number) => string;
  /** What was done with a page number that names no page. */
  note: string | null;
}

/** The page `requested` names, within 1..pages; anything else is read as the nearest page, and said so. */
export function pagingOf(
  total: number,
  perPage: number,
  requested: string | null,
  href: (page: number) => string,
): Paging {
  const pages = Math.max(1, Math.ceil(total / perPage));
  let page = 1;
  let note: string | null = null;
  if (requested !== null) {
    const shown = requested.length > 12 ? `${requested.slice(0, 12)}…` : requested;
    if (!/^\d{1,9}$/.test(requested)) note = `“${shown}” is not a page number: this is the first page.`;
    else if (Number(requested) < 1) note = `Pages are numbered from 1: this is the first page.`;
    else if (Number(requested) > pages) {
      page = pages;
      note = `There ${pages === 1 ? 'is only 1 page' : `are only ${pages} pages`}: this is the last.`;
    } else page = Number(requested);
  }
  const first = total === 0 ? 0 : (page - 1) * perPage + 1;
  return { page, pages, first, last: Math.min(total, page * perPage), total, href, note };
}

/** First, previous, next and last, with where this page sits: a list of any length is read to its end. */
export function Pager({ paging, label }: { paging: Paging; label: string }) {
  if (paging.pages <= 1) return null;
  const { page, pages, href } = paging;
  const link = (to: number, text: string, rel?: string) =>
    to === page || to < 1 || to > pages ? (
      <span aria-disabled="true">{text}</span>
    ) : (
      <a href={href(to)} rel={rel}>
        {text}
      </a>
    );
  return (
    <nav class="pager" aria-label={label}>
      <ul>
        <li>{link(1, 'First')}</li>
        <li>{link(page - 1, 'Previous', 'prev')}</li>
        <li>{link(page + 1, 'Next', 'next')}</li>
        <li>{link(pages, 'Last')}</li>
      </ul>
      <p>
        Page {formatNumber(page)} of {formatNumber(pages)}
      </p>
    </nav>
  );
}

const KIND_HEADINGS: Record<SearchKind, [string, string]> = {
  election: ['election', 'Elections'],
  party: ['party', 'Parties'],
  constituency: ['constituency', 'Constituencies'],
  person: ['person', 'People'],
};

export const kindCount = (kind: SearchKind, n: number) =>
  n === 1
    ? `1 ${KIND_HEADINGS[kind][0]}`
    : `${formatNumber(n)} ${kind === 'party' ? 'parties' : kind === 'constituency' ? 'constituencies' : kind === 'person' ? 'people' : 'elections'}`;

/** What became of the query, when it was not searched as typed. */
export type QueryProblem =
  | { kind: 'too long'; length: number; limit: number }
  | { kind: 'nothing to read' }
  | { kind: 'words dropped'; dropped: number; limit: number };

export interface SearchPageProps {
  /** As typed (at most the longest search read), for the box. */
  q: string;
  problem: QueryProblem | null;
  /** Null when nothing was searched. */
  results: {
    /** This page's results, each with where it leads. */
    hits: { hit: SearchHit; href: string }[];
    total: number;
    byKind: { kind: SearchKind; count: number }[];
    /** Names spelt nearly like the query, nothing having matched exactly. */
    nearly: boolean;
    /** The closest of them, and the query spelt as it is. */
    suggestion: { title: string; href: string; query: string; queryHref: string } | null;
  } | null;
  paging: Paging;
  links: CandidacyLinks;
}

export function SearchForm({ q, id = 'q' }: { q: string; id?: string }) {
  return (
    <form class="search" role="search" method="get" action="/search" aria-label="Search again">
      <label for={id}>A name, a place, a party or an election</label>
      <div class="inline">
        <input type="search" id={id} name="q" value={q} maxLength={200} aria-describedby={`${id}-hint`} />
        <button type="submit">Search</button>
      </div>
      <p id={`${id}-hint`} class="hint">
        Any case, with or without fadas, whole words or their beginnings: <q>mich mart</q>, <q>dublin bay south</q>,{' '}
        <q>sinn fein</q>, <q>2020</q>. A name spelt nearly right finds the name meant.
      </p>
    </form>
  );
}

function ProblemNote({ problem }: { problem: QueryProblem }) {
  const text =
    problem.kind === 'too long'
      ? `That search is ${formatNumber(problem.length)} characters long, and a search reads at most ${problem.limit}: a name, a place or a party, or the start of one. Nothing was searched; the box holds its first ${problem.limit} characters to shorten.`
      : problem.kind === 'nothing to read'
        ? 'That search has no letters or digits to look for: names, places and parties are found by their words.'
        : `A search reads at most ${problem.limit} words: the ${plural(problem.dropped, 'word')} after them ${problem.dropped === 1 ? 'was' : 'were'} left out.`;
  return (
    <p class="notice query-note" role="status">
      {text}
    </p>
  );
}

export function SearchPage({ q, problem, results, paging, links }: SearchPageProps) {
  const groups: { kind: SearchKind; hits: { hit: SearchHit; href: string }[] }[] = [];
  for (const found of results?.hits ?? []) {
    const last = groups.at(-1);
    if (last && last.kind === found.hit.kind) last.hits.push(found);
    else groups.push({ kind: found.hit.kind, hits: [found] });
  }
  return (
    <>
      <h1>Search</h1>
      <SearchForm q={q} />
      {problem && <ProblemNote problem={problem} />}
      {paging.note && (
        <p class="notice query-note" role="status">
          {paging.note}
        </p>
      )}
      {results && (
        <section aria-labelledby="results-title">
          <h2 id="results-title">
            {results.total === 0
              ? `Nothing matches “${q}”`
              : results.nearly
                ? `Nothing matches “${q}” exactly: ${plural(results.total, 'name')} spelt nearly like it`
                : `${plural(results.total, 'result')} for “${q}”`}
          </h2>
          {results.suggestion && (
            <p class="did-you-mean">
              Did you mean <a href={results.suggestion.href}>{results.suggestion.title}</a>? Or search for{' '}
              <a href={results.suggestion.queryHref}>“{results.suggestion.query}”</a>.
            </p>
          )}
          {results.total === 0 && (
            <p>Try fewer letters, one word of the name, or the name of the constituency or the party.</p>
          )}
          {results.total > 0 && (
            <p class="hint">
              {results.byKind.map((k) => kindCount(k.kind, k.count)).join(', ')}
              {paging.pages > 1 ? `; results ${formatNumber(paging.first)}–${formatNumber(paging.last)} below` : ''}.
            </p>
          )}
          <Pager paging={paging} label="Pages of results" />
          {groups.map((g) => (
            <section aria-labelledby={`results-${g.kind}`} class="results-group">
              <h3 id={`results-${g.kind}`}>{KIND_HEADINGS[g.kind][1]}</h3>
              <ol class="search-results">
                {g.hits.map(({ hit, href }) => (
                  <li>
                    <Hit hit={hit} href={href} links={links} />
                  </li>
                ))}
              </ol>
            </section>
          ))}
          <Pager paging={paging} label="Pages of results, again" />
        </section>
      )}
    </>
  );
}

function Hit({ hit, href, links }: { hit: SearchHit; href: string; links: CandidacyLinks }) {
  switch (hit.kind) {
    case 'election':
      return <ElectionResult hit={hit} href={href} />;
    case 'party':
      return <PartyResult hit={hit} href={href} />;
    case 'constituency':
      return <ConstituencyResult hit={hit} href={href} />;
    case 'person':
      return <PersonResult hit={hit} href={href} links={links} />;
  }
}

function ElectionResult({ hit, href }: { hit: ElectionHit; href: string }) {
  return (
    <>
      <p class="result-title">
        <a href={href}>{hit.label}</a>
      </p>
      <p>
        {formatDate(hit.date)}, the {hit.body}: {hit.seats === null ? '' : `${formatNumber(hit.seats)} seats, `}
        {plural(hit.constituencies, 'constituency', 'constituencies')}.
      </p>
    </>
  );
}

function PartyResult({ hit, href }: { hit: PartyHit; href: string }) {
  return (
    <>
      <p class="result-title">
        <a href={href}>
          <PartyChip party={hit.name} />
        </a>
        {hit.independents ? ' (candidates without a party, counted together; not a party)' : ''}
      </p>
      <ul class="inline-list">
        {hit.elections.map((e) => (
          <li>
            <a href={e.href}>{e.year}</a>: {plural(e.seats, 'seat')} of {plural(e.candidates, 'candidate')}
            {e.party !== hit.name ? ` (as ${e.party})` : ''}
          </li>
        ))}
      </ul>
    </>
  );
}

function ConstituencyResult({ hit, href }: { hit: ConstituencyHit; href: string }) {
  return (
    <>
      <p class="result-title">
        <a href={href}>{hit.name}</a>
        {hit.nameGa && (
          <>
            {' '}
            (<Ga>{hit.nameGa}</Ga>)
          </>
        )}
      </p>
      <ul class="inline-list">
        {hit.elections.map((e) => (
          <li>
            <a href={e.href}>{e.year}</a>: {plural(e.seats, 'seat')}
          </li>
        ))}
      </ul>
    </>
  );
}

function PersonResult({ hit, href, links }: { hit: PersonHit; href: string; links: CandidacyLinks }) {
  return (
    <>
      <p class="result-title">
        <a href={href}>{hit.person.name}</a>
      </p>
      <ul>
        {hit.person.candidacies.map((c) => (
          <li>
            <CandidacyLine c={c} links={links} />
          </li>
        ))}
      </ul>
    </>
  );
}

/** Every party and grouping across the elections, with its seats at each and a link to each election's page. */
export function PartiesIndexPage({ parties, years }: { parties: PartyHit[]; years: string[] }) {
  return (
    <>
      <h1>Parties</h1>
      <p class="lead">
        Every party that stood at the general elections loaded ({years.join(', ')}), as the press counts them:
        candidates without a party together as Independents (not a party), and 2011's United Left Alliance as one
        grouping. Each party's page for an election has its candidates and how its row is counted.
      </p>
      <ol class="search-results">
        {parties.map((p) => (
          <li>
            <PartyResult hit={p} href={p.elections.at(-1)!.href} />
          </li>
        ))}
      </ol>
    </>
  );
}

/** The elections loaded, latest first. */
export function ElectionsIndexPage({ elections }: { elections: (ElectionHit & { href: string })[] }) {
  return (
    <>
      <h1>Elections</h1>
      <p class="lead">
        The general elections loaded, latest first: each has its constituencies, parties and transfers.
      </p>
      <ol class="search-results">
        {elections.map((e) => (
          <li>
            <ElectionResult hit={e} href={e.href} />
          </li>
        ))}
      </ol>
    </>
  );
}

/** Every table served, by dataset: each a resource page to filter, sort and download. */
export function ResourcesIndexPage({
  datasets,
  resourceHref,
}: {
  datasets: { title: string; resources: CatalogResource[] }[];
  resourceHref: (id: string) => string;
}) {
  return (
    <>
      <h1>Every table</h1>
      <p class="lead">
        Each dataset's tables (resources, in CKAN's words): each to filter, sort and download, with the API call behind
        it.
      </p>
      {datasets.map((d) => (
        <section aria-label={d.title}>
          <h2>{d.title}</h2>
          <ul>
            {d.resources.map((r) => (
              <li>
                <a href={resourceHref(r.id)}>{r.definition.name}</a> ({plural(r.total, 'record')})
              </li>
            ))}
          </ul>
        </section>
      ))}
    </>
  );
}
