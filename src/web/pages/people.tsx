// Finding a candidate in any election, and a page per person: each candidacy across the elections, with first
// preferences, the count they were elected or excluded on and a link to that count, and how the candidacies were
// joined.

import type { Candidacy, Person, PersonMatch } from '../../elections/index.js';
import { formatNumber, formatShare, plural } from '../format.js';
import type { CandidacyLinks } from '../routes-together.js';
import { DataTable, Num, PartyChip } from './layout.js';

const year = (c: Candidacy) => c.date.slice(0, 4);

/**
 * "Elected on count 6", "Excluded on count 3", "Not elected": the count itself a link to the count as it stood then.
 */
export function ResultText({ c, links, lower = false }: { c: Candidacy; links: CandidacyLinks; lower?: boolean }) {
  const href = links.count(c.election, c.constituencyKey, c.decidedOn, c.counts);
  const cased = (text: string) => (lower ? text.toLowerCase() : text);
  if (c.result === 'not elected')
    return (
      <>
        {cased('Not elected')} (in the count to its end, <a href={href}>count {c.counts}</a>)
      </>
    );
  const verb = cased(c.result === 'elected' ? 'Elected' : 'Excluded');
  return c.decidedOn === null ? (
    <>{verb}</>
  ) : (
    <>
      {verb} on <a href={href}>count {c.decidedOn}</a>
    </>
  );
}

function PartyOf({ c, links }: { c: Candidacy; links: CandidacyLinks }) {
  const href = links.party(c.election, c.party);
  const chip = <PartyChip party={c.party} label={c.party || 'No party given'} />;
  return href ? <a href={href}>{chip}</a> : chip;
}

export function SearchPage({
  q,
  matches,
  total,
  limit,
  links,
}: {
  q: string;
  matches: PersonMatch[];
  total: number;
  limit: number;
  links: CandidacyLinks;
}) {
  return (
    <>
      <h1>Find a candidate</h1>
      <form class="search" role="search" method="get" action="/search" aria-label="Search again">
        <label for="q">Name, or the start of its words</label>
        <div class="inline">
          <input type="search" id="q" name="q" value={q} aria-describedby="q-hint" />
          <button type="submit">Find</button>
        </div>
        <p id="q-hint" class="hint">
          Any case, with or without fadas: <q>micheal martin</q>, <q>mich mart</q> and <q>o riordain</q> all find who
          they mean, in every election loaded.
        </p>
      </form>
      {q && (
        <section aria-labelledby="results-title">
          <h2 id="results-title">
            {total === 0
              ? `No candidate's name matches “${q}”`
              : `${plural(total, 'candidate')} whose name matches “${q}”`}
            {total > limit ? `: the first ${limit}` : ''}
          </h2>
          {total === 0 && <p>Try fewer letters, or one word of the name.</p>}
          <ol class="people-results">
            {matches.map(({ person }) => (
              <li>
                <h3>
                  <a href={links.person(person.key)}>{person.name}</a>
                </h3>
                <ul>
                  {person.candidacies.map((c) => (
                    <li>
                      <a href={links.election(c.election)}>{year(c)}</a>,{' '}
                      <a href={links.constituency(c.election, c.constituencyKey)}>{c.constituencyName}</a>,{' '}
                      <PartyOf c={c} links={links} />: {formatNumber(c.firstPreferences)} first preferences;{' '}
                      <ResultText c={c} links={links} lower />
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ol>
        </section>
      )}
    </>
  );
}

export function PersonPage({ person, links }: { person: Person; links: CandidacyLinks }) {
  const stood = person.candidacies;
  const elected = stood.filter((c) => c.result === 'elected').length;
  const unofficial = stood.filter((c) => !c.official);
  return (
    <>
      <h1>{person.name}</h1>
      <p class="lead">
        {stood.length === 1
          ? `Stood in the ${links.label(stood[0]!.election)}`
          : `Stood in ${stood.length} general elections (${stood.map(year).join(', ')})`}
        {elected === 0
          ? ', not elected.'
          : elected === stood.length && stood.length > 1
            ? `, elected at ${stood.length === 2 ? 'both' : 'all of them'}.`
            : `, elected ${elected === 1 ? 'once' : `${elected} times`}.`}
      </p>
      <DataTable
        scroll={`${person.name}'s candidacies`}
        class="data person"
        caption={<>{person.name}'s candidacies, oldest first</>}
        text={['Election', 'Constituency', 'Party']}
        numeric={['First preferences', 'Share', 'Quotas']}
        after={['Result', 'Record']}
      >
        {stood.map((c) => {
          const record = links.record(c.election, c.recordId);
          return (
            <tr>
              <th scope="row">
                <a href={links.election(c.election)}>{year(c)}</a>
                {!c.official && (
                  <a href="#unofficial-rows" class="footnote-mark" aria-label=": unofficial, see the note">
                    *
                  </a>
                )}
              </th>
              <td>
                <a href={links.constituency(c.election, c.constituencyKey)}>{c.constituencyName}</a>
              </td>
              <td>
                <PartyOf c={c} links={links} />
              </td>
              <Num>{formatNumber(c.firstPreferences)}</Num>
              <Num>{formatShare(c.share)}</Num>
              <Num>{c.quotas === null ? '–' : c.quotas.toFixed(2)}</Num>
              <td>
                <ResultText c={c} links={links} />
              </td>
              <td>
                {record ? (
                  <a href={record} aria-label={`The ${year(c)} record`}>
                    record
                  </a>
                ) : (
                  '–'
                )}
              </td>
            </tr>
          );
        })}
      </DataTable>
      {unofficial.length > 0 && (
        <p class="note" role="note" id="unofficial-rows">
          * {[...new Set(unofficial.map((c) => links.label(c.election)))].join(' and ')}: unofficial figures, derived
          from Wikipedia's count tables and checked against the official totals.
        </p>
      )}
      {person.spellings.length > 0 && (
        <p class="hint">
          The name is spelt as the latest official record spells it;{' '}
          {person.spellings
            .map(
              (s) =>
                `the ${s.elections.join(' and ')} record${s.elections.length > 1 ? 's spell' : ' spells'} it “${s.name}”`,
            )
            .join('; ')}
          .
        </p>
      )}
      <section aria-labelledby="matched-title">
        <h2 id="matched-title">How these candidacies were joined</h2>
        <p>
          By name (fadas, case and the spacing of Ó and Mac ignored) and constituency: the same constituency, or one
          redrawn from it that keeps a place in its name, for the same party. A candidacy that could belong to two
          people is joined to neither.
        </p>
        {person.reviewed.length > 0 && (
          <>
            <p>Reviewed decisions about this person:</p>
            <ul>
              {person.reviewed.map((r) => (
                <li>
                  {r.decision === 'same' ? 'Joined' : 'Kept apart'}: {r.earlier.name} ({links.label(r.earlier.election)}
                  , {r.earlier.constituency}) and {r.later.name} ({links.label(r.later.election)},{' '}
                  {r.later.constituency}). {r.evidence}
                </li>
              ))}
            </ul>
          </>
        )}
        {person.ambiguous.length > 0 && (
          <p>
            Not joined, as they could belong to someone else of the same name:{' '}
            {person.ambiguous
              .map((c) => `${c.firstName} ${c.surname} (${year(c)}, ${c.constituencyName}, ${c.party})`)
              .join('; ')}
            . <a href={`/search?q=${encodeURIComponent(person.name).replace(/%20/g, '+')}`}>Everyone of this name</a>.
          </p>
        )}
      </section>
    </>
  );
}
