// A page per person: each candidacy across the elections (the Ceann Comhairle's automatic return among them, marked),
// with first preferences, the count they were elected or excluded on and a link to that count, the records' own
// spellings of the name, and how the candidacies were joined; and everyone who stood, listed by surname.

import { INDEPENDENTS, type Candidacy, type Person } from '../../elections/index.js';
import { formatNumber, formatShare } from '../format.js';
import type { CandidacyLinks } from '../routes-together.js';
import { DataTable, Num, PartyChip } from './layout.js';
import { Pager, type Paging } from './search.js';

const year = (c: Candidacy) => c.date.slice(0, 4);

/** Returned automatically as the outgoing Ceann Comhairle: in no count, and in no results file. */
const isAutomatic = (c: Candidacy) => c.result === 'returned automatically';

/**
 * "Elected on count 6", "Excluded on count 3", "Not elected", "Returned automatically as Ceann Comhairle": a count is a
 * link to the count as it stood then.
 */
export function ResultText({ c, links, lower = false }: { c: Candidacy; links: CandidacyLinks; lower?: boolean }) {
  const cased = (text: string) => (lower ? text.toLowerCase() : text);
  if (isAutomatic(c)) return <>{cased('Returned automatically')} as Ceann Comhairle, without a contest</>;
  const href = links.count(c.election, c.constituencyKey, c.decidedOn, c.counts);
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

/**
 * The party a candidacy is counted for, linked to its page in that election; the record's own label beside it where
 * a grouping counts it otherwise (the United Left Alliance's members in 2011). Without a party: an independent.
 */
export function PartyOf({ c, links }: { c: Candidacy; links: CandidacyLinks }) {
  const href = links.party(c.election, c.party);
  const label = c.party === INDEPENDENTS ? 'Independent' : c.party || 'No party given';
  const chip = <PartyChip party={c.party} label={label} />;
  const recorded =
    c.recordedParty !== c.party && c.recordedParty !== 'Non-Party' && c.recordedParty !== '' ? c.recordedParty : null;
  return (
    <>
      {href ? <a href={href}>{chip}</a> : chip}
      {recorded && <> ({recorded})</>}
    </>
  );
}

/** One candidacy in a line: the year, the constituency, the party, the first preferences and the result. */
export function CandidacyLine({ c, links }: { c: Candidacy; links: CandidacyLinks }) {
  return (
    <>
      <a href={links.election(c.election)}>{year(c)}</a>,{' '}
      <a href={links.constituency(c.election, c.constituencyKey)}>{c.constituencyName}</a>,{' '}
      <PartyOf c={c} links={links} />:{' '}
      {isAutomatic(c) ? (
        <ResultText c={c} links={links} lower />
      ) : (
        <>
          {formatNumber(c.firstPreferences)} first preferences; <ResultText c={c} links={links} lower />
        </>
      )}
    </>
  );
}

const times = (n: number) => (n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`);

function listed(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** "Stood at 4 general elections (2011, 2016, 2020, 2024): elected in 2011 and 2016; returned automatically …". */
function Summary({ person, links }: { person: Person; links: CandidacyLinks }) {
  const all = person.candidacies;
  const stood = all.filter((c) => !isAutomatic(c));
  const elected = stood.filter((c) => c.result === 'elected');
  const automatic = all.filter(isAutomatic);
  const years = (list: Candidacy[]) => listed(list.map(year));
  const outcome: string[] = [];
  if (elected.length > 0)
    outcome.push(
      automatic.length === 0 && elected.length === stood.length && stood.length > 1
        ? `elected at ${stood.length === 2 ? 'both' : 'all of them'}`
        : `elected${all.length === 1 ? '' : ` in ${years(elected)}`}`,
    );
  if (automatic.length > 0)
    outcome.push(`returned automatically as Ceann Comhairle${all.length === 1 ? '' : ` in ${years(automatic)}`}`);
  const opening =
    all.length === 1
      ? `At the ${links.label(all[0]!.election)}`
      : `At ${all.length} general elections (${all.map(year).join(', ')})`;
  return <p class="lead">{`${opening}: ${outcome.length === 0 ? 'stood, not elected' : outcome.join('; ')}.`}</p>;
}

export function PersonPage({ person, links }: { person: Person; links: CandidacyLinks }) {
  const all = person.candidacies;
  const unofficial = all.filter((c) => !c.official && !isAutomatic(c));
  const automatic = all.filter(isAutomatic);
  return (
    <>
      <h1>{person.name}</h1>
      <Summary person={person} links={links} />
      {/* The year and its first preferences first: what a phone shows before the table scrolls. */}
      <DataTable
        scroll={`${person.name}'s elections`}
        class="data person"
        caption={<>{person.name} at each election, oldest first</>}
        text={['Election']}
        numeric={['First preferences', 'Share', 'Quotas']}
        after={['Result', 'Constituency', 'Party', 'Record']}
      >
        {all.map((c) => {
          const record = links.record(c.election, c.recordId);
          return (
            <tr class={isAutomatic(c) ? 'automatic' : undefined}>
              <th scope="row">
                <a href={links.election(c.election)}>{year(c)}</a>
                {!c.official && !isAutomatic(c) && (
                  <a href="#unofficial-rows" class="footnote-mark" aria-label=": unofficial, see the note">
                    *
                  </a>
                )}
                {isAutomatic(c) && (
                  <a href="#automatic-rows" class="footnote-mark" aria-label=": returned automatically, see the note">
                    †
                  </a>
                )}
              </th>
              <Num>{formatNumber(c.firstPreferences)}</Num>
              <Num>{formatShare(c.share)}</Num>
              <Num>{c.quotas === null ? '–' : c.quotas.toFixed(2)}</Num>
              <td>
                <ResultText c={c} links={links} />
              </td>
              <td>
                <a href={links.constituency(c.election, c.constituencyKey)}>{c.constituencyName}</a>
              </td>
              <td>
                <PartyOf c={c} links={links} />
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
      {automatic.length > 0 && (
        <p class="note" role="note" id="automatic-rows">
          † The outgoing Ceann Comhairle (the Dáil's chair) is returned automatically at a general election, without a
          contest: in no count and in no results file, so with no first preferences and no record. The seat counts for
          the party they were elected for; the constituency's other seats are contested as usual.
        </p>
      )}
      {unofficial.length > 0 && (
        <p class="note" role="note" id="unofficial-rows">
          * {[...new Set(unofficial.map((c) => links.label(c.election)))].join(' and ')}: unofficial figures, derived
          from Wikipedia's count tables and checked against the official totals.
        </p>
      )}
      {person.spellings.length > 0 && (
        <p class="hint">
          The name is shown as the latest record spells it, in the usual case;{' '}
          {person.spellings
            .map(
              (s) =>
                `the ${listed(s.elections.map(links.label))} record${s.elections.length > 1 ? 's spell' : ' spells'} it “${s.name}”`,
            )
            .join('; ')}
          . Each record page shows the record's own spelling.
        </p>
      )}
      <section aria-labelledby="matched-title">
        <h2 id="matched-title">How these candidacies were joined</h2>
        <p>
          By name (fadas, case and the spacing of Ó and Mac ignored) and constituency: the same constituency, or one
          redrawn from it that keeps a place in its name, for the same party. A candidacy that could belong to two
          people is joined to neither. Names the records spell two ways (a middle name, words in another order, a letter
          more) are joined only by a reviewed decision, with its evidence.
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

export interface PeopleIndexEntry {
  person: Person;
  /** The first letter of the surname as directories file it, a prefix read with the name (Ó Ríordáin under O). */
  letter: string;
}

/** Everyone who stood, by surname as Irish directories order them, a page at a time, with a letter index. */
export function PeopleIndexPage({
  entries,
  total,
  paging,
  letters,
  links,
}: {
  entries: PeopleIndexEntry[];
  total: number;
  paging: Paging;
  /** Each first letter of a surname, with the page it starts on. */
  letters: { letter: string; href: string }[];
  links: CandidacyLinks;
}) {
  return (
    <>
      <h1>Everyone who stood</h1>
      <p class="lead">
        {formatNumber(total)} people stood at the general elections loaded, or were returned to the Dáil without a
        contest, listed by surname (Ó, Mac and Ní read with the name, fadas ignored). A person's page joins their
        candidacies across elections.
      </p>
      <nav class="jump letters" aria-label="Surnames by first letter">
        <ul>
          {letters.map((l) => (
            <li>
              <a href={l.href}>{l.letter.toUpperCase()}</a>
            </li>
          ))}
        </ul>
      </nav>
      <Pager paging={paging} label="Pages of people" />
      <ol class="people-index" start={paging.first}>
        {entries.map(({ person, letter }, i) => {
          const firstOfLetter = i === 0 || entries[i - 1]!.letter !== letter;
          const returned = person.candidacies.filter((c) => c.result !== 'not elected' && c.result !== 'excluded');
          return (
            <li id={firstOfLetter ? `letter-${letter}` : undefined}>
              <a href={links.person(person.key)}>{person.name}</a>:{' '}
              {listed([...new Set(person.candidacies.map((c) => c.constituencyName))])},{' '}
              {person.candidacies.map(year).join(', ')}
              {returned.length > 0 ? ` (returned ${times(returned.length)})` : ''}
            </li>
          );
        })}
      </ol>
      <Pager paging={paging} label="Pages of people, again" />
    </>
  );
}
