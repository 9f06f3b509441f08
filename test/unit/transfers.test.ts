// Party-to-party transfers against counts worked by hand from the official 2020 count details of Dublin Bay South:
// Eamon Ryan's surplus (count 2), Mannix Flynn's exclusion (count 5), Kevin Humphreys's exclusion (count 8); the
// counts that mix parties left out; sums of votes, never means of shares; and the count as a flow that adds up.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  countFlow,
  Election,
  NON_TRANSFERABLE,
  partyTransfers,
  transferCounts,
  type TransferCount,
} from '../../src/elections/index.js';
import { election2020Records, house2020 } from '../helpers/election-files.js';

const election = new Election(election2020Records(), house2020());
const dbs = election.sheet('dublin-bay-south')!;
const { used, left } = transferCounts(dbs);
const at = (count: number) => used.find((c) => c.count === count)!;
const parties = (c: TransferCount) => Object.fromEntries([...c.toParty].sort(([a], [b]) => a.localeCompare(b)));

describe('transfers in Dublin Bay South, 2020, worked by hand', () => {
  test("count 2: Ryan's surplus of 969 (8,888 − 7,919), every vote transferred", () => {
    const c = at(2);
    assert.equal(c.kind, 'surplus');
    assert.deepEqual(
      c.from.map((f) => f.surname),
      ['Ryan'],
    );
    assert.equal(c.party, 'Green Party/ Comhaontas Glas');
    assert.equal(c.distributed, 969);
    // Murphy 118 + O'Connell 161 for Fine Gael; Burke 6, Dooley 7, Flynn 30, Keigher 2, O'Leary 1 for the independents.
    assert.deepEqual(parties(c), {
      'Fianna Fáil': 113,
      'Fine Gael': 279,
      'Irish Freedom Party': 3,
      'Non-Party': 46,
      'Renua Ireland': 9,
      'Sinn Féin': 51,
      'Social Democrats': 187,
      'Solidarity - People Before Profit': 47,
      'The Labour Party': 234,
    });
    assert.equal(c.nonTransferable, 0);
  });

  test("count 5: Flynn's exclusion, 753 votes, 68 going no further", () => {
    const c = at(5);
    assert.equal(c.kind, 'exclusion');
    assert.equal(c.party, 'Non-Party');
    assert.equal(c.distributed, 753);
    assert.deepEqual(parties(c), {
      'Fianna Fáil': 96,
      'Fine Gael': 114,
      'Renua Ireland': 45,
      'Sinn Féin': 145,
      'Social Democrats': 77,
      'Solidarity - People Before Profit': 98,
      'The Labour Party': 110,
    });
    assert.equal(c.nonTransferable, 68);
  });

  test("count 8: Humphreys's exclusion, 4,971 votes", () => {
    const c = at(8);
    assert.deepEqual(parties(c), { 'Fianna Fáil': 978, 'Fine Gael': 1978, 'Sinn Féin': 960 });
    assert.equal(c.nonTransferable, 1055);
    assert.equal(c.distributed, 4971);
  });

  test("counts that distribute several parties' votes at once are left out, and said why", () => {
    assert.deepEqual(
      left.map((l) => [l.count, l.reason, l.from.map((f) => f.surname).sort()]),
      [
        [4, 'several parties', ['Dooley', 'Scallan']],
        [7, 'several parties', ['Durcan', 'Mooney']],
      ],
    );
    // Count 3 excluded three candidates, all without a party: their votes are one group's.
    assert.deepEqual(
      at(3)
        .from.map((f) => f.surname)
        .sort(),
      ['Burke', 'Keigher', "O'Leary"],
    );
    assert.deepEqual(
      used.map((c) => c.count),
      [2, 3, 5, 6, 8],
    );
  });

  test("a party's shares are sums of votes over its counts, not means of shares", () => {
    const independents = partyTransfers(used).find((p) => p.party === 'Non-Party')!;
    // Counts 3 (178 votes) and 5 (753): 931 distributed; Sinn Féin gained 9 and 145.
    assert.equal(independents.distributed, 931);
    assert.equal(independents.counts, 2);
    const sf = independents.to.find((t) => t.party === 'Sinn Féin')!;
    assert.equal(sf.votes, 154);
    assert.equal(sf.share, 154 / 931);
    assert.equal(independents.to.find((t) => t.party === NON_TRANSFERABLE)!.votes, 78);
    for (const p of partyTransfers(used))
      assert.equal(
        p.to.reduce((s, t) => s + t.votes, 0),
        p.distributed,
        `${p.party}'s transfers add up`,
      );
  });

  test('nationally: every count used adds up, and the whole is the sum of the constituencies', () => {
    const all = election.constituencies.flatMap((c) => transferCounts(election.sheet(c.key)!).used);
    const national = partyTransfers(all);
    const distributed = national.reduce((s, p) => s + p.distributed, 0);
    assert.equal(
      distributed,
      all.reduce((s, c) => s + c.distributed, 0),
    );
    const ff = national.find((p) => p.party === 'Fianna Fáil')!;
    assert.equal(
      ff.distributed,
      all.filter((c) => c.party === 'Fianna Fáil').reduce((s, c) => s + c.distributed, 0),
    );
    for (const p of national)
      assert.equal(
        p.to.reduce((s, t) => s + t.votes, 0),
        p.distributed,
      );
  });
});

describe('the count as a flow', () => {
  test("each candidate's node holds their running total, and what enters it is what they had plus what they gained", () => {
    const { nodes, links } = countFlow(dbs);
    const ryan = dbs.candidates.find((s) => s.candidate.surname === 'Ryan')!.candidate.key;
    assert.equal(nodes.find((n) => n.id === `0:${ryan}`)!.votes, 8888);
    assert.equal(nodes.find((n) => n.id === `1:${ryan}`)!.votes, 7919);
    const out = links.filter((l) => l.source === `0:${ryan}`);
    assert.equal(
      out.reduce((s, l) => s + l.votes, 0),
      8888,
    );
    for (const node of nodes.filter((n) => n.column > 0 && n.who !== NON_TRANSFERABLE)) {
      const inflow = links.filter((l) => l.target === node.id).reduce((s, l) => s + l.votes, 0);
      assert.ok(Math.abs(inflow - node.votes) < 1e-9, `${node.id}: ${inflow} in, ${node.votes} held`);
    }
    assert.equal(nodes.find((n) => n.id === `7:${NON_TRANSFERABLE}`)!.votes, 10 + 41 + 68 + 251 + 420 + 1055);
  });
});
