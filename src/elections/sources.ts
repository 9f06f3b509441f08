// What the catalogue offers for election data: the layout of STV running-totals files and the transforms that derive
// and check an election's candidates, constituencies and counts, with what each needs and yields. The catalogue
// checks sources against these (catalog/source-kinds.ts); src/ingest/transforms/ derives the rows.

/** The official 2020 layouts every election's resources share (Resource A, B and the count details). */
export const CANDIDATE_COLUMNS = [
  'Constituency',
  'Surname',
  'Firstname',
  'Gender Id',
  'Party Id',
  'Party Abbreviation',
  'Count Number',
  'Required To Reach Quota',
  'Required To Save Deposit',
  'Votes',
  'Result',
  'Candidate Id',
  'Constituency Number',
  'Constituency Ainm',
] as const;
export const CONSTITUENCY_COLUMNS = [
  'Constituency Name',
  'Constituency Ainm',
  'Count Number',
  'Date Of Election',
  'Number Of Candidates',
  'Number of Seats',
  'Quota',
  'Required Save Deposit',
  'Seats Filled',
  'Seats in Constituency',
  'Spoiled',
  'Total Electorate',
  'Total Poll',
  'Valid Poll',
  'Constituency Number',
] as const;
export const COUNT_COLUMNS = [
  'Constituency Name',
  'Candidate surname',
  'Candidate First Name',
  'Result',
  'Count Number',
  'Non-Transferable',
  'Occurred On Count',
  'Required To Reach Quota',
  'Required To Save Deposit',
  'Transfers',
  'Votes',
  'Total Votes',
  'Constituency Number',
  'Candidate Id',
] as const;
export const CHECK_COLUMNS = [
  'Check',
  'Constituency',
  'Constituency Number',
  'Count Number',
  'Expected',
  'Actual',
  'Difference',
  'Status',
  'Note',
  'Source',
] as const;

/** The layout of STV running-totals files (one JSON document per constituency), a json layout with its columns said. */
export const STV_RUNNING_TOTALS = {
  name: 'stv-running-totals',
  base: 'json',
  records: '/candidates/*/counts/*',
  about: { title: '/pageTitle', url: '/pageUrl' },
  columns: {
    constituency_key: { path: '$stem', type: 'text', notes: "The file's name without its extension." },
    constituency: { path: '/constituency', type: 'text', notes: 'The constituency as the file names it.' },
    page_title: { path: '/pageTitle', type: 'text', notes: 'Title of the article the table was taken from.' },
    page_url: { path: '/pageUrl', type: 'text', notes: 'Address of the article the table was taken from.' },
    election_date: { path: '/electionDate', type: 'date', notes: 'Polling day.' },
    counts_in_constituency: { path: '/numCounts', type: 'int4', notes: 'Number of counts.' },
    candidate: { path: '/candidates/*/id', type: 'text', notes: "The candidate's number in the table." },
    name: { path: '/candidates/*/name', type: 'text', notes: "The candidate's name." },
    party: { path: '/candidates/*/party', type: 'text', notes: 'The party label.' },
    status: { path: '/candidates/*/status', type: 'text', notes: 'Elected, Excluded or Not Elected.' },
    elected_at: {
      path: '/candidates/*/electedAt',
      type: 'int4',
      notes: 'The count at which the candidate was elected.',
    },
    last_count: { path: '/candidates/*/lastCount', type: 'int4', notes: 'The last count with a running total.' },
    count: { path: '/candidates/*/counts/#', type: 'int4', notes: 'The count (its position in the list, from 1).' },
    running_total: {
      path: '/candidates/*/counts/*',
      type: 'int4',
      notes:
        'The running total after the count; empty once the candidate is out of the count or elected with no further change.',
    },
  },
} as const;

/**
 * The running-totals input of an STV transform (the stv-running-totals layout): the layout's columns it reads, each of
 * the kind the layout types it.
 */
function runningTotals(
  description: string,
  names: readonly (keyof typeof STV_RUNNING_TOTALS.columns)[],
): { required: true; description: string; columns: Record<string, 'text' | 'number'> } {
  const kind = (name: keyof typeof STV_RUNNING_TOTALS.columns) =>
    STV_RUNNING_TOTALS.columns[name].type === 'text' ? 'text' : 'number';
  return { required: true, description, columns: Object.fromEntries(names.map((name) => [name, kind(name)])) };
}

/** The optional Irish names input of an STV transform: official files of other elections that name constituencies. */
function irishNames(description: string) {
  return { required: false, description, columns: { name: 'text', ainm: 'text' } } as const;
}

function columns(names: readonly string[], notes: Record<string, string>): { name: string; notes: string }[] {
  return names.map((name) => ({ name, notes: notes[name] ?? '' }));
}

const STV_NOTES = {
  constituency: "The constituency's name as in the statistics input (the official results).",
  number:
    'Our number for the constituency: its position in the statistics input (alphabetical). Not an official number; it joins the three tables.',
  surname:
    'Split from the single name in the running-totals table: the last word, with the particles before it (Ó, Ní, Nic, Mac, Mag, Uí, de, …) and a trailing Jnr or Snr. First name and surname together are the name as published; a double surname written without a hyphen keeps its first part in the first name.',
  firstname: 'The rest of the published name before the surname (see Surname).',
  candidateId:
    "The candidate's number in the running-totals table of the constituency (unique with Constituency Number). Not an official candidate id.",
  result:
    'Elected or Excluded from the count at which it happened, as the running-totals table says; empty for a candidate still in the count.',
  quota:
    "Quota − Total Votes while the candidate is in the count and below the quota (elected without reaching it included); 0 once excluded or at the quota. The quota is the statistics input's.",
  deposit:
    "What the candidate still lacked of floor(quota / 4) + 1 votes (the threshold for the reimbursement of expenses, as the official 2016 and 2020 files compute it), at the candidate's highest total so far.",
  votes: 'First-preference votes: the running total at count 1.',
  occurred:
    'The count at which the candidate was elected or excluded (0 before it); at the last count, the last count for every candidate still in it, as the official files give it.',
};

/**
 * The transforms that derive an election's tables (from STV running totals, or from the official files) and check
 * them; the catalogue offers them by name (catalog/source-kinds.ts), src/ingest/transforms/ implements them.
 */
export const ELECTION_TRANSFORMS = [
  {
    name: 'stv-count-details',
    description:
      "Count details (one record per candidate per count) from STV running totals and the constituencies' quotas.",
    version: 1,
    inputs: {
      totals: runningTotals('Running totals, one record per candidate per count (the stv-running-totals layout).', [
        'constituency_key',
        'candidate',
        'name',
        'status',
        'count',
        'running_total',
      ]),
      statistics: {
        required: true,
        description: 'One record per constituency, in the order that numbers them.',
        columns: { constituency_key: 'text', constituency: 'text', quota: 'number' },
      },
    },
    options: {
      constituency_keys: {
        type: 'string-map',
        description:
          'The statistics key of a running-totals key where the two differ (e.g. {"laoighis-offaly": "laois-offaly"}).',
      },
    },
    columns: columns(COUNT_COLUMNS, {
      'Constituency Name': STV_NOTES.constituency,
      'Candidate surname': STV_NOTES.surname,
      'Candidate First Name': STV_NOTES.firstname,
      Result: STV_NOTES.result,
      'Count Number': 'The count (1 is the first-preference count).',
      'Non-Transferable':
        'Empty: the running-totals table gives no non-transferable papers per candidate. What each count did not transfer (votes distributed − votes gained) is in the consistency checks.',
      'Occurred On Count': STV_NOTES.occurred,
      'Required To Reach Quota': STV_NOTES.quota,
      'Required To Save Deposit': STV_NOTES.deposit,
      Transfers:
        "The change in the candidate's running total at this count: what the candidate gained, or minus the votes distributed from the candidate (the whole total on exclusion; the surplus over the quota, at the count when no one was excluded and the candidate's was the largest undistributed surplus).",
      Votes: STV_NOTES.votes,
      'Total Votes': 'The running total after the count: 0 once excluded, the quota once the surplus was distributed.',
      'Constituency Number': STV_NOTES.number,
      'Candidate Id': STV_NOTES.candidateId,
    }),
  },
  {
    name: 'stv-candidate-results',
    description:
      "Candidate results (one record per candidate) from STV running totals, the constituencies' statistics and party names.",
    version: 1,
    inputs: {
      totals: runningTotals('Running totals (the stv-running-totals layout).', [
        'constituency_key',
        'candidate',
        'name',
        'party',
        'status',
        'count',
        'running_total',
      ]),
      statistics: {
        required: true,
        description: 'One record per constituency.',
        columns: { constituency_key: 'text', constituency: 'text', quota: 'number' },
      },
      parties: {
        required: false,
        description: 'The party name and abbreviation to give each party label of the running totals.',
        columns: { label: 'text', party: 'text', abbreviation: 'text' },
      },
      irish_names: irishNames(
        'Irish names of constituencies, matched by name (accents, case, dashes and spaces ignored).',
      ),
    },
    options: {
      constituency_keys: { type: 'string-map', description: 'As for stv-count-details.' },
    },
    columns: columns(CANDIDATE_COLUMNS, {
      Constituency: STV_NOTES.constituency,
      Surname: STV_NOTES.surname,
      Firstname: STV_NOTES.firstname,
      'Gender Id': "Empty: the running-totals table does not give candidates' gender.",
      'Party Id':
        'The party label of the running-totals table, named through the parties input (independents as Non-Party, as the official files name them).',
      'Party Abbreviation': 'From the parties input; empty for a party no official file abbreviates.',
      'Count Number': 'The number of counts in the constituency.',
      'Required To Reach Quota': `At the last count: ${STV_NOTES.quota}`,
      'Required To Save Deposit': `At the last count: ${STV_NOTES.deposit}`,
      Votes: STV_NOTES.votes,
      Result: 'Elected, Excluded, or empty for a candidate neither elected nor excluded.',
      'Candidate Id': STV_NOTES.candidateId,
      'Constituency Number': STV_NOTES.number,
      'Constituency Ainm':
        'The Irish name of a constituency of the same name in the irish_names input (official files of other elections); empty for a constituency none of them names.',
    }),
  },
  {
    name: 'stv-constituency-results',
    description:
      "Constituency results (one record per constituency) from the constituencies' statistics and the STV running totals.",
    version: 1,
    inputs: {
      totals: runningTotals('Running totals (the stv-running-totals layout).', [
        'constituency_key',
        'candidate',
        'status',
        'count',
        'running_total',
      ]),
      statistics: {
        required: true,
        description: 'One record per constituency: seats, electorate, poll, spoiled and valid votes, quota.',
        columns: {
          constituency_key: 'text',
          constituency: 'text',
          seats: 'number',
          electorate: 'number',
          total_poll: 'number',
          spoiled: 'number',
          valid_poll: 'number',
          quota: 'number',
        },
      },
      irish_names: irishNames('Irish names of constituencies, matched by name.'),
    },
    options: {
      constituency_keys: { type: 'string-map', description: 'As for stv-count-details.' },
      seats_include_ceann_comhairle: {
        type: 'boolean',
        description:
          "Whether the statistics' seats count the Ceann Comhairle's seat in the Ceann Comhairle's constituency (the dataset's election.ceann_comhairle), which is then left out as the official files leave it out.",
      },
    },
    columns: columns(CONSTITUENCY_COLUMNS, {
      'Constituency Name': 'From the statistics input (the official results).',
      'Constituency Ainm':
        'The Irish name of a constituency of the same name in the irish_names input; empty for a constituency none of them names.',
      'Count Number': 'The number of counts in the running-totals table.',
      'Date Of Election': "Polling day (the dataset's election date).",
      'Number Of Candidates': 'Candidates in the running-totals table.',
      'Number of Seats':
        "Seats filled at the count, from the statistics input; the Ceann Comhairle's seat, filled without a contest, is not counted (as in the official files).",
      Quota: 'From the statistics input.',
      'Required Save Deposit':
        'floor(Quota / 4) + 1: the threshold for the reimbursement of expenses, as the official 2016 and 2020 files compute it.',
      'Seats Filled': 'Candidates the running-totals table marks elected.',
      'Seats in Constituency': 'As Number of Seats.',
      Spoiled: 'From the statistics input.',
      'Total Electorate': 'From the statistics input.',
      'Total Poll': 'From the statistics input.',
      'Valid Poll': 'From the statistics input.',
      'Constituency Number': STV_NOTES.number,
    }),
  },
  {
    name: 'count-details-constituency-results',
    description:
      'Constituency results (one record per constituency) from official count details, candidate details and constituency statistics.',
    version: 1,
    inputs: {
      counts: {
        required: true,
        description: 'Count details, as the counts resource holds them.',
        columns: {
          'Constituency Name': 'text',
          'Constituency Number': 'number',
          'Candidate Id': 'number',
          'Count Number': 'number',
          Result: 'text',
          'Required To Reach Quota': 'number',
          'Required To Save Deposit': 'number',
          'Total Votes': 'number',
        },
      },
      candidates: {
        required: true,
        description: 'Candidate details, as the candidates resource holds them (for the Irish names).',
        columns: { 'Constituency Number': 'number', 'Constituency Ainm': 'text' },
      },
      statistics: {
        required: true,
        description: 'One record per constituency, by name: spoiled and valid votes, electorate.',
        columns: { constituency: 'text', spoiled: 'number', valid_poll: 'number', electorate: 'number' },
      },
    },
    options: {},
    columns: columns(CONSTITUENCY_COLUMNS, {
      'Constituency Name': 'As in the official count details.',
      'Constituency Ainm': 'From the official candidate details, by constituency number.',
      'Count Number': 'The highest count in the official count details.',
      'Date Of Election': "Polling day (the dataset's election date).",
      'Number Of Candidates': 'Candidates in the official count details.',
      'Number of Seats':
        "Candidates the official count details mark elected (every seat was filled); the Ceann Comhairle's seat, filled without a contest, is not counted.",
      Quota:
        'Required To Reach Quota + Total Votes of a count-1 record of the official count details still short of the quota (the same for every such record).',
      'Required Save Deposit':
        'Required To Save Deposit + Total Votes of a count-1 record of the official count details still short of the threshold.',
      'Seats Filled': 'As Number of Seats.',
      'Seats in Constituency': 'As Number of Seats.',
      Spoiled: 'From the constituency statistics input.',
      'Total Electorate': 'From the constituency statistics input.',
      'Total Poll': 'Valid Poll + Spoiled.',
      'Valid Poll': 'From the constituency statistics input.',
      'Constituency Number': 'As in the official count details.',
    }),
  },
  {
    name: 'election-checks',
    description:
      "The consistency checks of one election's candidates, constituencies and counts, with the corrections applied to its sources and the notes on its known faults.",
    version: 2,
    inputs: {
      candidates: {
        required: true,
        description: 'The candidates resource.',
        columns: { 'Constituency Number': 'number', Result: 'text', 'Required To Save Deposit': 'number' },
      },
      constituencies: {
        required: true,
        description: 'The constituencies resource.',
        columns: {
          'Constituency Name': 'text',
          'Constituency Number': 'number',
          'Number of Seats': 'number',
          Quota: 'number',
          'Valid Poll': 'number',
        },
      },
      counts: {
        required: true,
        description: 'The counts resource.',
        columns: {
          'Constituency Number': 'number',
          'Candidate Id': 'number',
          'Count Number': 'number',
          Transfers: 'number',
          Votes: 'number',
        },
      },
      corrections: {
        required: false,
        description: 'The reviewed corrections applied to the sources (a corrections file read as a table).',
        columns: { file: 'text', location: 'text', published: 'text', corrected: 'text', evidence: 'text' },
      },
      known_faults: {
        required: false,
        description: 'Reviewed notes on checks known to fail because of the source, loaded as published.',
        columns: { check: 'text', constituency: 'text', count: 'number', note: 'text' },
      },
      expenses: {
        required: false,
        description:
          'Official counts, by constituency name, of the candidates who did not reach the threshold for the reimbursement of expenses.',
        columns: { constituency: 'text', lost_expenses_count: 'number' },
      },
    },
    options: {},
    columns: columns(CHECK_COLUMNS, {
      Check:
        'first-preferences (count-1 votes against the valid poll), count-transfers (votes gained at a count against the votes distributed), elected-seats (candidates elected against the seats), quota (the quota against floor(valid poll / (seats + 1)) + 1), dail-seats (seats and the Ceann Comhairle against the seats of the Dáil), expenses-threshold (where official figures give it: the candidates who did not reach the threshold against those still lacking votes of it), or correction (a value of a source corrected before loading).',
      Constituency: 'Empty for a check of the whole election.',
      'Constituency Number': 'As in the other tables; empty for a check of the whole election.',
      'Count Number': 'For count-transfers: the count.',
      Expected:
        'What the check requires (for count-transfers, the votes distributed; for a correction, the corrected value when a number).',
      Actual:
        'What the data gives (for count-transfers, the votes gained; for a correction, the published value when a number).',
      Difference: 'Expected − Actual (for count-transfers, the votes not transferred, which cannot be negative).',
      Status: 'passed, failed, or corrected.',
      Note: 'For a failed check, the reviewed note on the known fault, or that it was not reviewed; for a correction, its evidence.',
      Source: 'Where the checked values come from, or the corrected file and location.',
    }),
  },
] as const;
