// The election model: constituencies, candidates and count-by-count rows as the election views read them, whatever
// the resources' field names, and what the arithmetic derives from them (count sheets, party totals, comparisons).

export interface Constituency {
  /** URL-safe key made from the name (`dublin-bay-south`); unique within an election. */
  key: string;
  /** Number the three resources share, where they have one; the join key between them. */
  number: number | null;
  name: string;
  /** The Irish name, where given. */
  nameGa: string | null;
  seats: number;
  electorate: number | null;
  totalPoll: number | null;
  spoiled: number | null;
  validPoll: number;
  quota: number;
  /** Votes a candidate must exceed a quarter of the quota by to save a deposit and recover expenses. */
  quarterQuota: number;
  /** Number of counts, where the resource says; otherwise the highest count in the count details. */
  counts: number | null;
  /** `_id` of its record in the constituencies resource. */
  recordId: number;
  /** 1 where the outgoing Ceann Comhairle was returned here automatically, in a seat beside the `seats` contested. */
  returnedAutomatically: number;
}

export interface Candidate {
  /** `<constituency key>/<candidate id>`: candidate ids repeat across constituencies. */
  key: string;
  constituencyKey: string;
  candidateId: number;
  surname: string;
  firstName: string;
  /** As the resource has it (e.g. `F`, `M`, `Female`); null when the resource has no gender field. */
  gender: string | null;
  party: string;
  partyAbbreviation: string;
  firstPreferences: number;
  /** As the resource has it: `Elected`, `Excluded` or empty. */
  result: string;
  recordId: number;
  /**
   * The name and party as the record gives them, where what is shown differs: a name in capitals or misspelt, a party
   * label counted in a grouping as the press counts it (see `Presentation`).
   */
  recorded?: { firstName: string; surname: string; party: string; partyAbbreviation: string };
}

export interface CountRecord {
  constituencyKey: string;
  candidateId: number;
  count: number;
  /** Votes received (positive) or given away (negative) at this count; 0 at count 1. */
  transfers: number;
  /** Running total after this count. */
  total: number;
  /** `Elected`, `Excluded` or empty, as of this count. */
  result: string;
  /** The count on which the candidate's result occurred (0 while none has). */
  occurredOnCount: number;
}

/**
 * The house an election filled, as the Dáil counts it: its seats, and the outgoing Ceann Comhairle returned without a
 * contest (so in no count, and in no official results file), whose seat readers count for the party they were elected
 * for.
 */
export interface House {
  /**
   * Seats in the house, the Ceann Comhairle's included, as the election's description gives them; null when it does
   * not.
   */
  seats: number | null;
  ceannComhairle: { name: string; constituency: string; party: string | null } | null;
}

/** One election's records, read from its three resources. */
export interface ElectionData {
  constituencies: Constituency[];
  candidates: Candidate[];
  counts: CountRecord[];
  /** Fields the views needed but the resources lack, or rows that could not be joined; shown to readers as notes. */
  problems: string[];
}

/** What was distributed at a count. */
export type Distribution = { kind: 'first' } | { kind: 'surplus' | 'exclusion'; from: Candidate[]; votes: number };

export interface CountCell {
  count: number;
  /** Change at this count; null at count 1 and once the candidate is out of the count. */
  transfer: number | null;
  /** Running total after this count; null once the candidate has been excluded. */
  total: number | null;
  /** What happened to the candidate at this count, if anything. */
  event: 'elected' | 'excluded' | null;
}

export interface SheetCandidate {
  candidate: Candidate;
  cells: CountCell[];
  /** The count on which the candidate was elected, and the place in the order of election (1 = first). */
  elected: { count: number; order: number } | null;
  /** The count at which the candidate's votes were distributed after exclusion. */
  excludedAt: number | null;
  /** Highest running total reached. */
  highest: number;
  /** Whether the highest total exceeded a quarter of the quota (deposit returned, expenses recoverable). */
  reachedQuarterQuota: boolean;
}

export interface CountStep {
  count: number;
  distribution: Distribution;
  /** Votes that left the count at this step because they showed no further preference. */
  nonTransferable: number;
  nonTransferableSoFar: number;
  /** Candidates elected at this count, in order of election. */
  elected: Candidate[];
  /** Gains at this count, largest first: where the distributed votes went. */
  gains: { candidate: Candidate; votes: number }[];
}

/** A constituency's count laid out as results are printed: a row per candidate, a column per count. */
export interface CountSheet {
  constituency: Constituency;
  /** In order of first preferences, largest first, as count sheets are printed. */
  candidates: SheetCandidate[];
  steps: CountStep[];
  /** In order of election. */
  elected: SheetCandidate[];
}

export interface PartyTotals {
  /** URL-safe key made from the party name. */
  key: string;
  party: string;
  abbreviation: string;
  candidates: number;
  /** Candidates elected at the count, as the official records have them. */
  elected: number;
  /** 1 for the party of a Ceann Comhairle returned automatically, else 0. */
  returnedAutomatically: number;
  /** Seats as the Dáil had them: `elected` plus `returnedAutomatically`. */
  seats: number;
  /** Null when the election's records give no candidate's gender. */
  women: number | null;
  womenElected: number | null;
  firstPreferences: number;
  /** Share of the valid poll, 0–1. */
  voteShare: number;
  /** Share of the house's seats (`seats` over the election's `houseSeats`), 0–1. */
  seatShare: number;
  /** Candidates whose votes exceeded a quarter of the quota at some count. */
  reachedQuarterQuota: number;
  /** The party labels of the records this row counts, where a grouping joins several or renames one. */
  labels?: string[];
  /** How the row is counted, where a reviewed grouping made it (its evidence). */
  counting?: string;
  /** Candidates without a party, counted together as the press counts them: not a party with loyalty or a line. */
  independents?: boolean;
}

export interface ElectionTotals {
  /** Seats contested, summed over the constituencies (the official files' count). */
  seats: number;
  /** 1 when a Ceann Comhairle was returned automatically, else 0. */
  returnedAutomatically: number;
  /** Seats as the Dáil had them: `seats` plus `returnedAutomatically`. */
  houseSeats: number;
  constituencies: number;
  candidates: number;
  electorate: number | null;
  totalPoll: number | null;
  validPoll: number;
  spoiled: number | null;
  /** Total poll over electorate, 0–1; null when either is missing. */
  turnout: number | null;
  elected: number;
  /** Null when the election's records give no candidate's gender and no reviewed figure gives it. */
  women: number | null;
  womenElected: number | null;
  /** Where `women` comes from, when it is not counted from the candidates' genders (a reviewed official figure). */
  womenSource?: string;
}
