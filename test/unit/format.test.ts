// How values read in the explorer's tables: whole numbers with thousands separators unless the field names a year, an
// id, a code or a number (1984, not 1,984); dates, and timestamps at midnight, as the day alone.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cellText, isLabelNumber, isTechnicalColumn } from '../../src/web/format.js';

test('amounts are grouped; years, ids, codes and numbers that name something are not', () => {
  assert.equal(cellText(11023, 'numeric', 'Votes'), '11,023');
  assert.equal(cellText(3715285, 'int8', 'Total Electorate'), '3,715,285');
  for (const field of [
    'Year',
    'year',
    'Election Year',
    'Candidate Id',
    'id',
    'site_id',
    'Code',
    'Eircode',
    'Constituency Number',
    'Count Number',
    'No.',
    'zip',
  ]) {
    assert.ok(isLabelNumber(field), field);
  }
  assert.equal(cellText(1984, 'int4', 'Year'), '1984');
  assert.equal(cellText(20551, 'numeric', 'Candidate Id'), '20551');
  assert.equal(cellText(1984.5, 'numeric', 'Year'), '1,984.5', 'not a whole number: an amount');
  for (const field of ['Votes', 'Identity theft cases', 'Turnout', 'Numbers of seats'])
    assert.ok(!isLabelNumber(field), field);
});

test('dates read as dates', () => {
  assert.equal(cellText('2020-02-08', 'date', 'Date'), '2020-02-08');
  assert.equal(cellText('2020-02-08T00:00:00', 'timestamp', 'Date Of Election'), '2020-02-08');
  assert.equal(cellText('2020-02-08T00:00:00.000', 'timestamp', 'Date Of Election'), '2020-02-08');
  assert.equal(cellText('2020-02-08T14:30:00', 'timestamp', 'Counted at'), '2020-02-08T14:30:00');
  assert.equal(cellText(null, 'timestamp', 'x'), '—');
});

test("a search's rank is a technical column", () => {
  assert.ok(isTechnicalColumn({ id: 'rank', type: 'float' }));
  assert.ok(isTechnicalColumn({ id: 'rank Surname', type: 'float' }));
  assert.ok(!isTechnicalColumn({ id: 'rank', type: 'text' }));
  assert.ok(!isTechnicalColumn({ id: 'Votes', type: 'numeric' }));
});
