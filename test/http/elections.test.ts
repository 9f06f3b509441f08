// Every election through the API, on both stores: the totals the source notes give, computed here from the source
// files themselves, answer the same through datastore_search and datastore_search_sql; provenance in package_show;
// the consistency report; the data dictionary of derived fields.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { DATA_DIR, RESOURCE_A, startService, type TestService, TEST_BACKENDS } from '../helpers/service.js';

const ELECTIONS = {
  2011: {
    candidates: 'b092ff16-bc56-479a-af0b-b2c3aa2b90d2',
    constituencies: '4a4656f0-b399-4d00-beaf-064cfaf26f85',
    counts: '1e8b9251-327c-4bf2-949f-f1236e2622d9',
    checks: '5362e3d4-34ec-40f6-aea2-0ca52e779cb5',
  },
  2016: {
    candidates: 'df0efad7-47bf-4dec-9f7d-07d182a995cc',
    constituencies: '7173dea5-9042-44b5-b47d-47589e991145',
    counts: '6bc45750-652d-4e82-b422-0bdcfc2a4c53',
    checks: 'e003a227-18da-4dfe-9db6-2bbd5419deb7',
  },
  2020: { checks: '8eb98cee-9d9f-40a5-803f-f02b91b56329' },
  2024: {
    candidates: 'e6b7c1fb-a1ba-45aa-971b-2248c06c71d0',
    constituencies: '96684057-adb5-466b-a872-7170a6173f17',
    counts: '5301ac84-2dca-4403-afa6-7df65f908be8',
    checks: '5fcb3032-a0c4-46f6-ac9c-42a4245f7e1e',
  },
};

// ---- the source files, read here without the loader

const csv = (file: string, encoding = 'utf8') =>
  parse(iconv.decode(readFileSync(path.join(DATA_DIR, file)), encoding), { columns: true }) as Record<string, string>[];
const sum = (values: Iterable<number>) => [...values].reduce((a, b) => a + b, 0);
const wikipedia = (folder: string) =>
  readdirSync(path.join(DATA_DIR, folder))
    .sort()
    .map(
      (f) =>
        JSON.parse(readFileSync(path.join(DATA_DIR, folder, f), 'utf8')) as {
          pageUrl: string;
          candidates: { counts: (number | null)[]; status: string }[];
        },
    );

const counts2016 = csv('2016/generalelection2016countdetails.csv', 'windows-1252');
const candidates2016 = csv('2016/2016-04-28_general-election-2016-candidate-details-csv_en.csv');
const statistics2024 = csv('2024/constituency-statistics-2024.csv');
const statistics2011 = csv('2011/constituency-statistics-2011.csv');
const wikipedia2024 = wikipedia('2024/wikipedia-counts-2024-11-29');
const wikipedia2011 = wikipedia('2011/wikipedia-counts-2011-02-25');

for (const backend of TEST_BACKENDS)
  describe(`elections [${backend}]`, () => {
    let service: TestService;
    before(async () => {
      service = await startService({}, backend);
    });
    after(() => service.close());

    const api = async (action: string, params: Record<string, unknown> = {}) => {
      const query = new URLSearchParams(
        Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
      );
      const { status, body } = await service.getJson(`/api/3/action/${action}?${query}`);
      assert.equal(status, 200, JSON.stringify(body));
      return body.result;
    };
    const total = async (resource: string, filters?: object) =>
      (await api('datastore_search', { resource_id: resource, limit: 0, ...(filters ? { filters } : {}) }))
        .total as number;
    // datastore_search_sql sends numeric values as JSON numbers, as CKAN 2.11 and later do.
    const sql = async (statement: string) =>
      (await api('datastore_search_sql', { sql: statement })).records as Record<string, unknown>[];
    const extras = async (dataset: string) =>
      Object.fromEntries(
        (await api('package_show', { id: dataset })).extras.map((e: { key: string; value: string }) => [
          e.key,
          e.value,
        ]),
      );

    test('2016: 5,685 count records, 2,132,895 first preferences, 157 elected and the Ceann Comhairle, 40 constituencies', async () => {
      const { counts, candidates, constituencies } = ELECTIONS[2016];
      const firstPreferences = sum(counts2016.filter((r) => r['Count Number'] === '1').map((r) => Number(r.Votes)));
      assert.equal(counts2016.length, 5685);
      assert.equal(firstPreferences, 2132895);
      assert.equal(await total(counts), counts2016.length);
      assert.deepEqual(await sql(`SELECT sum("Votes") AS votes FROM "${counts}" WHERE "Count Number" = 1`), [
        { votes: firstPreferences },
      ]);
      const elected = candidates2016.filter((r) => r.Result === 'Elected').length;
      assert.equal(elected, 157);
      assert.equal(await total(candidates, { Result: 'Elected' }), elected);
      const constituencyNames = new Set(counts2016.map((r) => r['Constituency Name']));
      assert.equal(constituencyNames.size, 40);
      assert.equal(await total(constituencies), constituencyNames.size);
      const facts = await extras('general-election-2016');
      assert.equal(facts.seats, '158');
      assert.equal(facts.ceann_comhairle, 'Seán Barrett (Dún Laoghaire), returned without a contest');
      assert.deepEqual(
        await sql(`SELECT sum("Number of Seats") AS seats, sum("Valid Poll") AS valid FROM "${constituencies}"`),
        [{ seats: elected, valid: firstPreferences }],
      );
    });

    test("2016's count details keep the official resource id, and its file's checksum", async () => {
      const resource = await api('resource_show', { id: ELECTIONS[2016].counts });
      const sha = createHash('sha256')
        .update(readFileSync(path.join(DATA_DIR, '2016/generalelection2016countdetails.csv')))
        .digest('hex');
      assert.equal(resource.hash, `sha256:${sha}`);
      assert.equal(
        sha,
        '37f7f19615b2d553f93137ddd35e477bd4d4c5dbcf929cdd675801c12e2775df',
        "the published hash of the portal's file",
      );
    });

    test("2024: 43 constituencies, 174 seats with the Ceann Comhairle's, 2,202,453 first preferences", async () => {
      const { constituencies, candidates, counts } = ELECTIONS[2024];
      assert.equal(statistics2024.length, 43);
      const seats = sum(statistics2024.map((r) => Number(r.seats)));
      assert.equal(seats, 174);
      const firstPreferences = sum(wikipedia2024.flatMap((f) => f.candidates.map((c) => c.counts[0]!)));
      assert.equal(firstPreferences, 2202453);
      assert.equal(await total(constituencies), 43);
      const [row] = await sql(
        `SELECT sum("Number of Seats") AS contested, sum("Valid Poll") AS valid FROM "${constituencies}"`,
      );
      const facts = await extras('general-election-2024');
      assert.equal(Number(row!.contested) + (facts.ceann_comhairle ? 1 : 0), seats);
      assert.equal(facts.seats, String(seats));
      assert.equal(row!.valid, firstPreferences);
      assert.deepEqual(await sql(`SELECT sum("Votes") AS votes FROM "${candidates}"`), [{ votes: firstPreferences }]);
      assert.deepEqual(await sql(`SELECT sum("Votes") AS votes FROM "${counts}" WHERE "Count Number" = 1`), [
        { votes: firstPreferences },
      ]);
      assert.equal(await total(candidates), sum(wikipedia2024.map((f) => f.candidates.length)));
      assert.equal(await total(candidates, { Result: 'Elected' }), 173);
    });

    test("2011: a valid poll of 2,220,359; the source's first preferences, corrected once, 45 short of it", async () => {
      const { constituencies, counts } = ELECTIONS[2011];
      const valid = sum(statistics2011.map((r) => Number(r.valid_poll)));
      assert.equal(valid, 2220359);
      assert.deepEqual(await sql(`SELECT sum("Valid Poll") AS valid, count(*) AS n FROM "${constituencies}"`), [
        { valid, n: 43 },
      ]);
      const published = sum(wikipedia2011.flatMap((f) => f.candidates.map((c) => c.counts[0]!)));
      // Charles Flanagan's 10,443 is loaded as 10,427 (data/corrections/general-election-2011.csv).
      assert.deepEqual(await sql(`SELECT sum("Votes") AS votes FROM "${counts}" WHERE "Count Number" = 1`), [
        { votes: published - 16 },
      ]);
      assert.equal(published - 16, valid - 45);
    });

    test('provenance: source, licence, attribution with every article, what is unofficial', async () => {
      const dataset = await api('package_show', { id: 'general-election-2024' });
      assert.equal(dataset.license_id, 'CC-BY-SA-4.0');
      const facts = Object.fromEntries(dataset.extras.map((e: { key: string; value: string }) => [e.key, e.value]));
      assert.deepEqual(Object.keys(facts), [
        'attribution',
        'attribution_urls',
        'ceann_comhairle',
        'consistency_checks',
        'election_date',
        'official_status',
        'seats',
        'source',
        'source_files',
        'unofficial',
      ]);
      assert.deepEqual(JSON.parse(facts.attribution_urls), [...new Set(wikipedia2024.map((f) => f.pageUrl))]);
      assert.equal(JSON.parse(facts.attribution_urls).length, 43);
      assert.equal(facts.official_status, 'partly official');
      assert.match(facts.unofficial, /^Candidates, counts and transfers: not official/);
      assert.match(facts.attribution, /Wikipedia contributors/);
      const files = JSON.parse(facts.source_files) as { path: string; sha256: string }[];
      assert.ok(files.some((f) => f.path === '2024/constituency-statistics-2024.csv'));
      assert.ok(
        files.some((f) => f.path === 'data/known-faults/general-election-2024.csv'),
        'the reviewed notes are part of the provenance',
      );
      assert.equal((await extras('general-election-2016')).official_status, 'official');
      assert.equal((await extras('general-election-2011')).consistency_checks, ELECTIONS[2011].checks);
    });

    test('the consistency report: what failed in each election, and what was corrected', async () => {
      const failed = async (checks: string) =>
        (
          await api('datastore_search', {
            resource_id: checks,
            filters: { Status: ['failed', 'corrected'] },
            fields: 'Check,Constituency,Count Number,Difference,Status',
            limit: 100,
          })
        ).records.map((r: Record<string, unknown>) => [
          r.Check,
          r.Constituency,
          r['Count Number'],
          r.Difference,
          r.Status,
        ]);
      assert.deepEqual(await failed(ELECTIONS[2020].checks), []);
      assert.deepEqual(await failed(ELECTIONS[2016].checks), []);
      assert.deepEqual(await failed(ELECTIONS[2024].checks), [
        ['count-transfers', 'Cavan Monaghan', 4, -9, 'failed'],
        ['expenses-threshold', 'Clare', null, -1, 'failed'],
      ]);
      // The derived threshold (floor(quota / 4) + 1) leaves as many candidates short of it as the official results
      // count,
      // in 42 of the 43 constituencies.
      const lost = sum(statistics2024.map((r) => Number(r.lost_expenses_count)));
      assert.deepEqual(
        await sql(`SELECT count(*) AS n FROM "${ELECTIONS[2024].candidates}" WHERE "Required To Save Deposit" > 0`),
        [{ n: lost + 1 }],
      );
      assert.deepEqual(await failed(ELECTIONS[2011].checks), [
        ['first-preferences', '', null, 45, 'failed'],
        ['count-transfers', 'Cork North Central', 3, -267, 'failed'],
        ['count-transfers', 'Cork North Central', 4, -306, 'failed'],
        ['count-transfers', 'Cork North Central', 6, -654, 'failed'],
        ['count-transfers', 'Cork North Central', 7, -2018, 'failed'],
        ['first-preferences', 'Dublin Central', null, 45, 'failed'],
        ['count-transfers', 'Dublin Central', 2, -35, 'failed'],
        ['count-transfers', 'Dublin South Central', 3, -6, 'failed'],
        ['count-transfers', 'Dublin South Central', 9, -12, 'failed'],
        ['count-transfers', 'Kildare South', 3, -60, 'failed'],
        ['count-transfers', 'Laois Offaly', 3, -4, 'failed'],
        ['correction', 'Galway West', null, 9025.965, 'corrected'],
        ['correction', 'Laois Offaly', null, -16, 'corrected'],
      ]);
      const notes = await api('datastore_search', {
        resource_id: ELECTIONS[2011].checks,
        filters: { Status: 'failed' },
        fields: 'Note',
      });
      assert.ok(
        notes.records.every((r: { Note: string }) => r.Note.startsWith('Known fault, loaded as published: ')),
        'every failure is a reviewed, known fault',
      );
      for (const year of [2011, 2016, 2020, 2024] as const) {
        const passed = await total(ELECTIONS[year].checks, { Check: 'quota', Status: 'passed' });
        assert.equal(
          passed,
          await total(ELECTIONS[year].checks, { Check: 'quota' }),
          `every quota of ${year} is floor(valid / (seats + 1)) + 1`,
        );
      }
    });

    test('the data dictionary says why a field is empty or how it was derived; the official 2020 fields have none', async () => {
      const info = await api('datastore_info', { id: ELECTIONS[2024].counts });
      const byId = Object.fromEntries(info.fields.map((f: { id: string }) => [f.id, f]));
      assert.deepEqual(Object.keys(byId['Non-Transferable']), ['id', 'type', 'info', 'schema']);
      assert.match(
        byId['Non-Transferable'].info.notes,
        /^Empty: the running-totals table gives no non-transferable papers/,
      );
      assert.deepEqual(Object.keys(byId['Non-Transferable'].info), ['label', 'notes', 'type_override']);
      const search = await api('datastore_search', {
        resource_id: ELECTIONS[2024].candidates,
        limit: 1,
        fields: 'Gender Id,Votes',
      });
      assert.deepEqual(
        search.fields.map((f: { id: string; info?: { notes: string } }) => [f.id, f.info?.notes.slice(0, 6) ?? null]),
        [
          ['Gender Id', 'Empty:'],
          ['Votes', 'First-'],
        ],
      );
      assert.deepEqual(search.records, [{ 'Gender Id': '', Votes: wikipedia2024[0]!.candidates[0]!.counts[0] }]);
      const official = await api('datastore_info', { id: RESOURCE_A });
      assert.ok(official.fields.every((f: object) => !('info' in f)));
      const renamed = await api('datastore_info', { id: ELECTIONS[2016].counts });
      assert.equal(
        renamed.fields.find((f: { id: string }) => f.id === 'Non-Transferable').info.notes,
        "The official file's column Non_Transferable (2020's file calls it Non-Transferable).",
      );
    });

    test('a query written for 2020 answers for every year by changing the resource id', async () => {
      const query = { fields: 'Constituency,Surname,Firstname,Party Id,Votes,Result', sort: 'Votes desc', limit: 1 };
      for (const resource of [
        RESOURCE_A,
        ELECTIONS[2016].candidates,
        ELECTIONS[2024].candidates,
        ELECTIONS[2011].candidates,
      ]) {
        const result = await api('datastore_search', { resource_id: resource, ...query });
        assert.deepEqual(
          result.fields.map((f: { id: string }) => f.id),
          query.fields.split(','),
        );
        assert.equal(result.records[0].Result, 'Elected');
      }
    });

    test('bad input on the new resources is a CKAN error, never a 500', async () => {
      const bad = await service.getJson(
        `/api/3/action/datastore_search?resource_id=${ELECTIONS[2024].checks}&filters=${encodeURIComponent('{"Expected":"lots"}')}`,
      );
      assert.equal(bad.status, 409);
      const unknown = await service.getJson(
        `/api/3/action/datastore_search?resource_id=${ELECTIONS[2024].checks}&sort=${encodeURIComponent('Turnout desc')}`,
      );
      assert.equal(unknown.status, 409);
      assert.deepEqual(unknown.body.error, { sort: ['invalid value "Turnout desc"'], __type: 'Validation Error' });
    });
  });
