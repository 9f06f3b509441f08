// Real CKAN clients against a listening server: ckan.js itself (its Node build), the requests ckan.js makes from a
// browser (jQuery posting JSON text as a form body), and ckanapi's RemoteCKAN reproduced in Python with the same
// standard-library calls it makes (ckanapi itself cannot be installed here), which also reads a dump with Python's
// csv module, as pandas and spreadsheets do.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { RESOURCE_A, RESOURCE_B, startService, type TestService, TEST_BACKENDS } from '../helpers/service.js';

interface CkanJs {
  Client: new (endpoint: string) => {
    action(name: string, data: unknown, cb: (err: unknown, body: any) => void): void;
    datastoreQuery(query: unknown, cb: (err: unknown, out: any) => void): void;
  };
}
const CKAN = createRequire(import.meta.url)('ckan') as CkanJs;

// ckanapi's RemoteCKAN.call_action: prepare_action, urllib, then reverse_apicontroller_action, as ckanapi 4.x does.
const CKANAPI_REPLICA = String.raw`
import csv, io, json, sys
from urllib.request import Request, urlopen
from urllib.error import HTTPError

class NotFound(Exception): pass
class ValidationError(Exception): pass
class NotAuthorized(Exception): pass
class CKANAPIError(Exception): pass

def call_action(address, action, data_dict):
    data = json.dumps(data_dict or {}).encode('ascii')
    headers = {'Content-Type': 'application/json', 'User-Agent': 'ckanapi/4.7 (+https://github.com/ckan/ckanapi)'}
    url = address.rstrip('/') + '/api/action/' + action
    try:
        r = urlopen(Request(url, data, headers))
        status, response = r.getcode(), r.read()
    except HTTPError as e:
        status, response = e.code, e.read()
    parsed = json.loads(response)
    if parsed.get('success'):
        return parsed['result']
    err = parsed.get('error', {})
    etype = err.get('__type')
    emessage = err.get('message', '').split(': ', 1)[-1]
    if etype == 'Validation Error': raise ValidationError(err)
    if etype == 'Not Found Error': raise NotFound(emessage)
    if etype == 'Authorization Error': raise NotAuthorized(err)
    raise CKANAPIError(repr([url, status, response]))

address, resource = sys.argv[1], sys.argv[2]
out = {}
result = call_action(address, 'datastore_search', {'resource_id': resource, 'filters': {'Party Id': 'Fianna F\u00e1il'}, 'limit': 2, 'sort': 'Votes desc'})
out['search'] = {'total': result['total'], 'surnames': [r['Surname'] for r in result['records']]}
out['package'] = call_action(address, 'package_show', {'id': 'general-election-2020'})['license_id']
try:
    call_action(address, 'datastore_search', {'resource_id': 'nope'})
except NotFound as e:
    out['not_found'] = str(e)
try:
    call_action(address, 'datastore_search', {'resource_id': resource, 'limit': 'many'})
except ValidationError as e:
    out['validation'] = e.args[0]['limit']
url = call_action(address, 'resource_show', {'id': resource})['url']
rows = list(csv.DictReader(io.TextIOWrapper(urlopen(url), encoding='utf-8')))
out['dump'] = {'rows': len(rows), 'first': rows[0]['Surname'], 'party': rows[0]['Party Id']}
print(json.dumps(out))
`;

for (const backend of TEST_BACKENDS)
  describe(`CKAN clients [${backend}]`, () => {
    let service: TestService;
    let address: string;
    before(async () => {
      service = await startService({}, backend);
      address = service.address;
    });
    after(() => service.close());

    test('ckan.js (Node): action() posts JSON and gets the result', async () => {
      const client = new CKAN.Client(address);
      const body = await new Promise<any>((resolve, reject) =>
        client.action(
          'datastore_search',
          { resource_id: RESOURCE_A, filters: { 'Constituency Number': 1 }, fields: ['Surname', 'Votes'], limit: 2 },
          (err, b) => (err ? reject(err) : resolve(b)),
        ),
      );
      assert.equal(body.success, true);
      assert.equal(body.result.total, 14);
      assert.deepEqual(body.result.records, [
        { Surname: 'AYLWARD', Votes: 7550 },
        { Surname: 'BYRNE', Votes: 992 },
      ]);
    });

    test('ckan.js (Node): datastoreQuery() with Recline-style sort, term filters and paging', async () => {
      const client = new CKAN.Client(address);
      const out = await new Promise<any>((resolve, reject) =>
        client.datastoreQuery(
          {
            resource_id: RESOURCE_A,
            size: 3,
            from: 1,
            sort: [{ field: 'Votes', order: 'desc' }],
            filters: [{ type: 'term', field: 'Gender Id', term: 'F' }],
          },
          (err, o) => (err ? reject(err) : resolve(o)),
        ),
      );
      assert.equal(out.total, 161);
      assert.equal(out.hits.length, 3);
      assert.ok(out.hits[0].Votes >= out.hits[1].Votes && out.hits.every((h: any) => h['Gender Id'] === 'F'));
      assert.equal(out.fields.find((f: any) => f.id === 'Surname').type, 'string', 'ckan.js maps text to string');
    });

    test('ckan.js (Node): an error reaches the callback', async () => {
      const client = new CKAN.Client(address);
      const err = await new Promise<unknown>((resolve) =>
        client.action('datastore_search', { resource_id: 'nope' }, (e) => resolve(e)),
      );
      assert.match(String(err), /HTTP code 404/);
      assert.match(String(err), /"__type": "Not Found Error"/);
    });

    test('ckan.js (browser): jQuery posts JSON text as a form body; CKAN reads it as JSON', async () => {
      const response = await fetch(`${address}/api/3/action/datastore_search`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8',
          'X-Requested-With': 'XMLHttpRequest',
        },
        body: JSON.stringify({ resource_id: RESOURCE_B, q: 'Galway', limit: 5 }),
      });
      assert.equal(response.status, 200);
      const body = (await response.json()) as any;
      assert.deepEqual(body.result.records.map((r: any) => r['Constituency Name']).sort(), [
        'Galway East',
        'Galway West',
        'Roscommon Galway',
      ]);
    });

    test('ckanapi (Python, RemoteCKAN.call_action as it is written): results, NotFound, ValidationError, and the dump URL', async () => {
      const { stdout } = await promisify(execFile)('python3', ['-c', CKANAPI_REPLICA, address, RESOURCE_A]);
      const out = JSON.parse(stdout);
      assert.deepEqual(out.search, { total: 84, surnames: ['Martin', 'McGUINNESS'] });
      assert.equal(out.package, 'CC-BY-SA-4.0');
      assert.equal(out.not_found, 'Resource "nope" was not found.');
      assert.deepEqual(out.validation, ['Invalid integer', 'Please enter an integer value']);
      assert.deepEqual(out.dump, { rows: 531, first: 'AYLWARD', party: 'Fianna Fáil' });
    });
  });
