// An election, ready for its views: the records read into the model, each constituency's count sheet worked out
// once (on first use), and the totals that depend on them. Pure: it is given records, never fetches them.

import { countSheet } from './count.js';
import { electionTotals, partyTotals } from './parties.js';
import { countingOf, NO_PRESENTATION, present, type Presentation } from './presentation.js';
import { readElection, type ElectionRecords } from './read.js';
import type {
  Candidate,
  Constituency,
  CountRecord,
  CountSheet,
  ElectionData,
  ElectionTotals,
  House,
  PartyTotals,
} from './types.js';

export * from './types.js';
export {
  compareElections,
  type Comparison,
  type ConstituencyChange,
  type ElectionSummary,
  type PartyChange,
} from './compare.js';
export {
  ConstituencyLineage,
  constituencySwing,
  handsText,
  LINK_RELATIONS,
  majorityArithmetic,
  partySwing,
  partySwingsAt,
  tallyOf,
  type ConstituencyLink,
  type ConstituencyPartySwing,
  type ConstituencyRef,
  type ConstituencySwing,
  type ConstituencyTally,
  type LineageElection,
  type LinkedConstituency,
  type MajorityArithmetic,
  type PartySwing,
  type SeatGain,
  type SeatLoss,
} from './change.js';
export { countSheet, sheetAfterCount, totalAfter } from './count.js';
export { compareSurnames, compareText, displayName, partyMatchKey, slugOf, surnameSortKey } from './names.js';
export { CEANN_COMHAIRLE_ROW, electionTotals, isElectedResult, isWoman, partyRecords, partyTotals } from './parties.js';
export {
  groupingOf,
  INDEPENDENTS,
  NO_PRESENTATION,
  type ElectionFigure,
  type IrishNameSpelling,
  type NameSpelling,
  type PartyGrouping,
  type Presentation,
} from './presentation.js';
export { partiesOverTime, type ElectionsOverTime, type PartyLine, type PartyLineage } from './over-time.js';
export {
  candidacyId,
  candidaciesOf,
  isReturned,
  nameKey,
  nearNameKind,
  unreviewedNearNames,
  nameWords,
  peopleOf,
  type Candidacy,
  type CandidateMatch,
  type ElectionCandidacies,
  type MatchSide,
  type NearNameKind,
  type NearNames,
  type People,
  type Person,
} from './people.js';
export {
  countFlow,
  NON_TRANSFERABLE,
  partyOf,
  partyTransfers,
  transferCounts,
  type FlowLink,
  type FlowNode,
  type LeftOutCount,
  type PartyTransfers,
  type TransferCount,
} from './transfers.js';
export {
  droopQuota,
  FIELD_NAMES,
  quarterQuotaOf,
  readElection,
  type ElectionRecords,
  type RecordObject,
  type ResourceRecords,
} from './read.js';

export class Election {
  readonly data: ElectionData;
  readonly house: House;
  private readonly byKey: Map<string, Constituency>;
  private readonly candidatesOf = new Map<string, Candidate[]>();
  private readonly countsOf = new Map<string, CountRecord[]>();
  private readonly sheets = new Map<string, CountSheet>();
  private totalsMemo: ElectionTotals | null = null;
  private partiesMemo: PartyTotals[] | null = null;

  private readonly presentation: Presentation;
  private readonly name: string;

  /**
   * `presentation` (reviewed spellings and party groupings) applies to the election called `name`; without them the
   * records are shown as they are, names aside (read in the usual case).
   */
  constructor(
    records: ElectionRecords,
    house: House = { seats: null, ceannComhairle: null },
    presentation: Presentation = NO_PRESENTATION,
    name = '',
  ) {
    this.house = house;
    this.presentation = presentation;
    this.name = name;
    this.data = present(readElection(records, house), name, presentation);
    this.byKey = new Map(this.data.constituencies.map((c) => [c.key, c]));
    for (const c of this.data.candidates) {
      const list = this.candidatesOf.get(c.constituencyKey) ?? [];
      list.push(c);
      this.candidatesOf.set(c.constituencyKey, list);
    }
    for (const r of this.data.counts) {
      const list = this.countsOf.get(r.constituencyKey) ?? [];
      list.push(r);
      this.countsOf.set(r.constituencyKey, list);
    }
  }

  get constituencies(): readonly Constituency[] {
    return this.data.constituencies;
  }

  get hasCounts(): boolean {
    return this.data.counts.length > 0;
  }

  constituency(key: string): Constituency | undefined {
    return this.byKey.get(key);
  }

  candidates(constituencyKey: string): readonly Candidate[] {
    return this.candidatesOf.get(constituencyKey) ?? [];
  }

  sheet(constituencyKey: string): CountSheet | undefined {
    const constituency = this.byKey.get(constituencyKey);
    if (!constituency) return undefined;
    let sheet = this.sheets.get(constituencyKey);
    if (!sheet) {
      sheet = countSheet(constituency, this.candidates(constituencyKey), this.countsOf.get(constituencyKey) ?? []);
      this.sheets.set(constituencyKey, sheet);
    }
    return sheet;
  }

  get totals(): ElectionTotals {
    return (this.totalsMemo ??= electionTotals(
      this.data,
      this.house,
      this.presentation.figures.filter((f) => f.election === this.name),
    ));
  }

  get parties(): readonly PartyTotals[] {
    if (!this.partiesMemo) {
      const sheets = this.hasCounts ? this.data.constituencies.map((c) => this.sheet(c.key)!) : [];
      this.partiesMemo = partyTotals(this.data, sheets, this.house, countingOf(this.presentation, this.name));
    }
    return this.partiesMemo;
  }

  party(key: string): PartyTotals | undefined {
    return this.parties.find((p) => p.key === key);
  }
}
