// The home page: a card per loaded election (date, seats, constituencies, turnout, and where to go next), then every
// other dataset with its resources. Record counts are exact.

import type { CatalogResource } from '../../catalog/catalog.js';
import type { ElectionTotals } from '../../elections/index.js';
import { formatDate, formatNumber, formatShare, plural } from '../format.js';

export interface ElectionCard {
  name: string;
  label: string;
  title: string;
  date: string;
  body: string;
  totals: ElectionTotals | null;
  /** Seats in the house (the Ceann Comhairle's included, where the catalogue says). */
  seats: number | null;
  /** Why totals are missing, when they are (the store could not be read). */
  problem: string | null;
  href: string;
  constituencies: string;
  parties: string;
  /** Where its transfers went, when it has count details. */
  transfers: string | null;
  candidatesResource: CatalogResource | null;
  resources: CatalogResource[];
}

export interface DatasetCard {
  title: string;
  notes: string;
  resources: CatalogResource[];
}

export function HomePage({
  elections,
  datasets,
  compare,
  resourceHref,
}: {
  elections: ElectionCard[];
  datasets: DatasetCard[];
  compare: boolean;
  resourceHref: (id: string) => string;
}) {
  return (
    <>
      <h1>Irish election results, to read and to query</h1>
      <p class="lead">
        Every count of every constituency, party totals, and the official records behind them: filter, sort and download
        them, or call the same data from code through the CKAN-compatible API.
      </p>
      {elections.length > 0 && (
        <form method="get" action="/search" class="home-search search" role="search" aria-label="Search every election">
          <label for="home-q">Search every election: people, constituencies, parties</label>
          <div class="inline">
            <input
              type="search"
              id="home-q"
              name="q"
              placeholder="e.g. micheal martin, dublin bay south, sinn fein"
              maxLength={200}
            />
            <button type="submit">Search</button>
          </div>
        </form>
      )}
      {elections.length > 0 && (
        <section aria-labelledby="elections-title">
          <h2 id="elections-title">Elections</h2>
          {compare && (
            <ul class="big-links">
              <li>
                <a href="/elections">Elections over time</a>: every party's seats, share of the vote and candidates,
                election by election.
              </li>
              <li>
                <a href="/compare">Compare two elections</a>: party shares, seats and turnout side by side.
              </li>
              <li>
                <a href="/people">Everyone who stood</a>, by surname, each with their elections; and{' '}
                <a href="/parties">every party</a>, with its seats at each election.
              </li>
            </ul>
          )}
          <ul class="cards">
            {elections.map((e) => (
              <li class="card">
                <h3>
                  <a href={e.href}>{e.label}</a>
                </h3>
                <p class="meta">
                  {formatDate(e.date)} · {e.body}
                </p>
                {e.totals ? (
                  <dl class="mini-facts">
                    <div>
                      <dt>Seats</dt>
                      <dd>{formatNumber(e.seats ?? e.totals.seats)}</dd>
                    </div>
                    <div>
                      <dt>Constituencies</dt>
                      <dd>{formatNumber(e.totals.constituencies)}</dd>
                    </div>
                    <div>
                      <dt>Candidates</dt>
                      <dd>{formatNumber(e.totals.candidates)}</dd>
                    </div>
                    <div>
                      <dt>Turnout</dt>
                      <dd>{formatShare(e.totals.turnout)}</dd>
                    </div>
                  </dl>
                ) : (
                  <p class="hint">{e.problem}</p>
                )}
                <ul class="card-links">
                  <li>
                    <a href={e.constituencies}>Constituencies and counts</a>
                  </li>
                  <li>
                    <a href={e.parties}>Party totals</a>
                  </li>
                  {e.transfers && (
                    <li>
                      <a href={e.transfers}>Transfers</a>
                    </li>
                  )}
                </ul>
                <details>
                  <summary>The data ({plural(e.resources.length, 'table')})</summary>
                  <ResourceList resources={e.resources} resourceHref={resourceHref} />
                </details>
              </li>
            ))}
          </ul>
        </section>
      )}
      {datasets.length > 0 && (
        <section aria-labelledby="datasets-title">
          <h2 id="datasets-title">{elections.length > 0 ? 'Other datasets' : 'Datasets'}</h2>
          <ul class="cards">
            {datasets.map((d) => (
              <li class="card">
                <h3>{d.title}</h3>
                {d.notes && <p>{d.notes}</p>}
                <ResourceList resources={d.resources} resourceHref={resourceHref} />
              </li>
            ))}
          </ul>
        </section>
      )}
      {elections.length === 0 && datasets.length === 0 && <p>No data is loaded yet.</p>}
    </>
  );
}

/** A dataset's tables, each linked, with its number of records. */
function ResourceList({
  resources,
  resourceHref,
}: {
  resources: readonly CatalogResource[];
  resourceHref: (id: string) => string;
}) {
  return (
    <ul>
      {resources.map((r) => (
        <li>
          <a href={resourceHref(r.id)}>{r.definition.name}</a> ({plural(r.total, 'record')})
        </li>
      ))}
    </ul>
  );
}
