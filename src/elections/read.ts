// Records of an election's three resources → the typed model. Field names are looked up among the spellings the
// published files use (2020's `Firstname`, 2016's `First Name`, …), so every election with these roles reads alike;
// what is missing is derived where the arithmetic allows (quota from the valid poll) and reported where it does not.

import { slugOf } from './names.js';
import type { Candidate, Constituency, CountRecord, ElectionData, House } from './types.js';

export type RecordObject = Record<string, unknown>;

export interface ResourceRecords {
  /** The resource's field ids (what the records may hold). */
  fields: readonly string[];
  records: readonly RecordObject[];
}

export interface ElectionRecords {
  constituencies: ResourceRecords | null;
  candidates: ResourceRecords | null;
  counts: ResourceRecords | null;
}

/** The spellings each value goes by in the published files; the first one a resource has is used. */
export const FIELD_NAMES = {
  constituencies: {
    name: ['Constituency Name', 'Constituency'],
    nameGa: ['Constituency Ainm'],
    number: ['Constituency Number'],
    seats: ['Number of Seats', 'Seats in Constituency', 'Seats'],
    electorate: ['Total Electorate', 'Electorate'],
    totalPoll: ['Total Poll'],
    spoiled: ['Spoiled'],
    validPoll: ['Valid Poll'],
    quota: ['Quota'],
    quarterQuota: ['Required Save Deposit', 'Required To Save Deposit'],
    counts: ['Count Number'],
  },
  candidates: {
    constituency: ['Constituency', 'Constituency Name'],
    nameGa: ['Constituency Ainm'],
    number: ['Constituency Number'],
    surname: ['Surname', 'Candidate surname'],
    firstName: ['Firstname', 'First Name', 'Candidate First Name'],
    gender: ['Gender Id', 'Gender'],
    party: ['Party Id', 'Party'],
    abbreviation: ['Party Abbreviation'],
    votes: ['Votes'],
    result: ['Result'],
    candidateId: ['Candidate Id'],
  },
  counts: {
    constituency: ['Constituency Name', 'Constituency'],
    number: ['Constituency Number'],
    candidateId: ['Candidate Id'],
    count: ['Count Number'],
    transfers: ['Transfers'],
    total: ['Total Votes'],
    result: ['Result'],
    occurredOn: ['Occurred On Count'],
  },
} as const;

type Role = keyof typeof FIELD_NAMES;

/** The field ids a constituency is read from; any missing one is counted from the candidates or left empty. */
type ConstituencyFields = Partial<Record<keyof typeof FIELD_NAMES.constituencies, string>>;

/** For each value of a role, the field id the resource has for it, or undefined. */
function fieldMap<R extends Role>(
  role: R,
  fields: readonly string[],
): Record<keyof (typeof FIELD_NAMES)[R], string | undefined> {
  const have = new Set(fields);
  const names = FIELD_NAMES[role] as Record<string, readonly string[]>;
  return Object.fromEntries(
    Object.entries(names).map(([key, spellings]) => [key, spellings.find((s) => have.has(s))]),
  ) as never;
}

function numberOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value.replace(/,/g, ''));
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

function textOf(value: unknown): string {
  return value === null || value === undefined ? '' : String(value).trim();
}

/** The quota of an STV count: the Droop quota, floor(valid / (seats + 1)) + 1. */
export function droopQuota(validPoll: number, seats: number): number {
  return Math.floor(validPoll / (seats + 1)) + 1;
}

/** The deposit and expenses threshold: more than a quarter of the quota. */
export function quarterQuotaOf(quota: number): number {
  return Math.floor(quota / 4) + 1;
}

const NO_HOUSE: House = { seats: null, ceannComhairle: null };

export function readElection(input: ElectionRecords, house: House = NO_HOUSE): ElectionData {
  const problems: string[] = [];
  if (!input.candidates) {
    return { constituencies: [], candidates: [], counts: [], problems: ['This election has no candidates resource.'] };
  }
  const cf = fieldMap('candidates', input.candidates.fields);
  for (const need of ['constituency', 'surname', 'party', 'votes'] as const) {
    if (!cf[need]) problems.push(`The candidates resource has no ${FIELD_NAMES.candidates[need].join(' / ')} field.`);
  }
  if (problems.length > 0) return { constituencies: [], candidates: [], counts: [], problems };

  // Constituencies are joined by number when every resource has one, by name otherwise.
  const kf = input.constituencies ? fieldMap('constituencies', input.constituencies.fields) : null;
  const nf = input.counts ? fieldMap('counts', input.counts.fields) : null;
  const byNumber = Boolean(cf.number && (!kf || kf.number) && (!nf || nf.number));
  const keyByJoin = new Map<string, string>();
  const joinOf = (record: RecordObject, numberField: string | undefined, nameField: string | undefined) =>
    byNumber ? `#${numberOf(record[numberField!])}` : slugOf(textOf(record[nameField!]));

  const constituencies: Constituency[] = [];
  const usedKeys = new Set<string>();
  const uniqueKey = (name: string) => {
    let key = slugOf(name);
    for (let n = 2; usedKeys.has(key); n++) key = `${slugOf(name)}-${n}`;
    usedKeys.add(key);
    return key;
  };

  // Candidates first: constituencies can be derived from them when there is no constituencies resource.
  const candidateRows = input.candidates.records;
  const firstPreferencesByJoin = new Map<string, number>();
  const electedByJoin = new Map<string, number>();
  for (const r of candidateRows) {
    const join = joinOf(r, cf.number, cf.constituency);
    firstPreferencesByJoin.set(join, (firstPreferencesByJoin.get(join) ?? 0) + (numberOf(r[cf.votes!]) ?? 0));
    if (cf.result && /^elected$/i.test(textOf(r[cf.result])))
      electedByJoin.set(join, (electedByJoin.get(join) ?? 0) + 1);
  }

  /**
   * Adds the constituency a record gives, under its join: a record of the constituencies resource, or a candidate's,
   * whose fields give only the name, number and Irish name, the rest then counted from the constituency's candidates.
   */
  const addConstituency = (r: RecordObject, f: ConstituencyFields, join: string, recordId: number): string => {
    const name = textOf(r[f.name!]);
    const seats = numberOf(f.seats ? r[f.seats] : null) ?? electedByJoin.get(join) ?? 0;
    const validPoll = numberOf(f.validPoll ? r[f.validPoll] : null) ?? firstPreferencesByJoin.get(join) ?? 0;
    const quota = numberOf(f.quota ? r[f.quota] : null) ?? droopQuota(validPoll, seats);
    const key = uniqueKey(name);
    keyByJoin.set(join, key);
    constituencies.push({
      key,
      name,
      number: f.number ? numberOf(r[f.number]) : null,
      nameGa: f.nameGa ? textOf(r[f.nameGa]) || null : null,
      seats,
      validPoll,
      quota,
      electorate: f.electorate ? numberOf(r[f.electorate]) : null,
      totalPoll: f.totalPoll ? numberOf(r[f.totalPoll]) : null,
      spoiled: f.spoiled ? numberOf(r[f.spoiled]) : null,
      quarterQuota: numberOf(f.quarterQuota ? r[f.quarterQuota] : null) ?? quarterQuotaOf(quota),
      counts: f.counts ? numberOf(r[f.counts]) : null,
      recordId,
      returnedAutomatically: 0,
    });
    return key;
  };

  if (input.constituencies && kf) {
    if (!kf.name) problems.push('The constituencies resource has no Constituency Name field.');
    else {
      for (const r of input.constituencies.records)
        addConstituency(r, kf, joinOf(r, kf.number, kf.name), numberOf(r._id) ?? 0);
    }
  }

  const candidates: Candidate[] = [];
  const candidateKeys = new Set<string>();
  const unjoined = new Set<string>();
  candidateRows.forEach((r, i) => {
    const join = joinOf(r, cf.number, cf.constituency);
    let key = keyByJoin.get(join);
    if (key === undefined) {
      if (input.constituencies) {
        unjoined.add(textOf(r[cf.constituency!]));
        return;
      }
      // No constituencies resource: each constituency is made from its candidates.
      key = addConstituency(r, { name: cf.constituency, number: cf.number, nameGa: cf.nameGa }, join, 0);
    }
    const candidateId = cf.candidateId ? (numberOf(r[cf.candidateId]) ?? i + 1) : i + 1;
    const candidateKey = `${key}/${candidateId}`;
    if (candidateKeys.has(candidateKey)) {
      problems.push(
        `Candidate ${candidateId} appears twice in ${textOf(r[cf.constituency!])}; the second is left out.`,
      );
      return;
    }
    candidateKeys.add(candidateKey);
    candidates.push({
      key: candidateKey,
      constituencyKey: key,
      candidateId,
      surname: textOf(r[cf.surname!]),
      firstName: cf.firstName ? textOf(r[cf.firstName]) : '',
      gender: cf.gender ? textOf(r[cf.gender]) : null,
      party: textOf(r[cf.party!]),
      partyAbbreviation: cf.abbreviation ? textOf(r[cf.abbreviation]) : textOf(r[cf.party!]),
      firstPreferences: numberOf(r[cf.votes!]) ?? 0,
      result: cf.result ? textOf(r[cf.result]) : '',
      recordId: numberOf(r._id) ?? 0,
    });
  });
  for (const name of unjoined) problems.push(`Candidates of "${name}" match no constituency record and are left out.`);
  const cc = house.ceannComhairle;
  if (cc) {
    const seat = constituencies.find(
      (c) => c.key === slugOf(cc.constituency) || slugOf(c.name) === slugOf(cc.constituency),
    );
    if (seat) seat.returnedAutomatically = 1;
    else
      problems.push(
        `The Ceann Comhairle's constituency, "${cc.constituency}", matches no constituency; their seat is counted nationally only.`,
      );
  }

  const counts: CountRecord[] = [];
  if (input.counts && nf) {
    const missing = (['candidateId', 'count', 'total'] as const).filter((k) => !nf[k]);
    if (missing.length > 0 || (!nf.number && !nf.constituency)) {
      problems.push(
        `The count details resource lacks ${missing.map((k) => FIELD_NAMES.counts[k][0]).join(', ') || 'a constituency field'}; no count sheets.`,
      );
    } else {
      const unknown = new Set<string>();
      for (const r of input.counts.records) {
        const key = keyByJoin.get(joinOf(r, nf.number, nf.constituency));
        const candidateId = numberOf(r[nf.candidateId!]);
        const count = numberOf(r[nf.count!]);
        if (
          key === undefined ||
          candidateId === null ||
          count === null ||
          !candidateKeys.has(`${key}/${candidateId}`)
        ) {
          unknown.add(textOf(r[nf.constituency ?? nf.number!]));
          continue;
        }
        counts.push({
          constituencyKey: key,
          candidateId,
          count,
          transfers: numberOf(nf.transfers ? r[nf.transfers] : null) ?? 0,
          total: numberOf(r[nf.total!]) ?? 0,
          result: nf.result ? textOf(r[nf.result]) : '',
          occurredOnCount: numberOf(nf.occurredOn ? r[nf.occurredOn] : null) ?? 0,
        });
      }
      for (const name of unknown) problems.push(`Count rows of "${name}" match no candidate and are left out.`);
    }
  }
  return { constituencies, candidates, counts, problems };
}
