// The error catalogue as envelopes: every kind of error has one status, one __type and one body shape.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERROR_KINDS, errors } from '../../src/errors.js';
import { errorEnvelope, helpUrl, successEnvelope } from '../../src/http/envelope.js';
import { RawJson } from '../../src/serialize/python-json.js';

const help = helpUrl('http://h', 'en', 'datastore_search');

test('help links carry site, locale and action', () => {
  assert.equal(help, 'http://h/en/api/3/action/help_show?name=datastore_search');
  assert.equal(
    helpUrl('https://x.ie/portal', '', 'help_show'),
    'https://x.ie/portal/api/3/action/help_show?name=help_show',
  );
});

test('success: help, success, result, with raw record fragments spliced in', () => {
  assert.deepEqual(successEnvelope(help, { records: new RawJson('[{"a":1}]'), total: 1 }), {
    status: 200,
    body: '{"help": "http://h/en/api/3/action/help_show?name=datastore_search", "success": true, "result": {"records": [{"a":1}], "total": 1}}',
  });
});

test('every error kind has its status and body', () => {
  const cases = [
    [
      errors.validation({ limit: ['Invalid integer'] }),
      409,
      '{"help": "HELP", "error": {"limit": ["Invalid integer"], "__type": "Validation Error"}, "success": false}',
    ],
    [
      errors.invalidQuery('bad'),
      409,
      '{"help": "HELP", "error": {"query": ["Invalid query"], "info": {"orig": ["bad"]}, "__type": "Validation Error"}, "success": false}',
    ],
    [
      errors.queryTimeout(),
      409,
      '{"help": "HELP", "error": {"query": ["Search took too long"], "__type": "Validation Error"}, "success": false}',
    ],
    [
      errors.resourceNotFound('x'),
      404,
      '{"help": "HELP", "error": {"__type": "Not Found Error", "message": "Not found: Resource \\"x\\" was not found."}, "success": false}',
    ],
    [
      errors.authorization('Not authorized to access system tables'),
      403,
      '{"help": "HELP", "error": {"__type": "Authorization Error", "message": "Access denied: Not authorized to access system tables"}, "success": false}',
    ],
    [
      errors.methodNotAllowed('PUT', ['GET', 'POST']),
      405,
      '{"help": "HELP", "error": {"__type": "Method Not Allowed", "message": "Method PUT not allowed here; use GET, POST"}, "success": false}',
    ],
    [
      errors.payloadTooLarge(10),
      413,
      '{"help": "HELP", "error": {"__type": "Request Entity Too Large", "message": "Request body larger than 10 bytes"}, "success": false}',
    ],
    [
      errors.unavailable('database unreachable'),
      503,
      '{"help": "HELP", "error": {"__type": "Service Unavailable", "message": "database unreachable"}, "success": false}',
    ],
    [
      errors.internal(),
      500,
      '{"help": "HELP", "error": {"__type": "Internal Server Error", "message": "Internal Server Error"}, "success": false}',
    ],
    [
      errors.badGateway('The portal could not be reached: ECONNREFUSED'),
      502,
      '{"help": "HELP", "error": {"__type": "Bad Gateway", "message": "The portal could not be reached: ECONNREFUSED"}, "success": false}',
    ],
    [
      errors.gatewayTimeout('The portal could not be reached: no answer within 30 s'),
      504,
      '{"help": "HELP", "error": {"__type": "Gateway Timeout", "message": "The portal could not be reached: no answer within 30 s"}, "success": false}',
    ],
    [errors.unknownAction('foo'), 400, '"Bad request - Action name not known: foo"'],
    [errors.badJson('Error decoding JSON data.'), 400, '"Bad request - JSON Error: Error decoding JSON data."'],
  ] as const;
  const kinds = new Set<string>();
  for (const [error, status, body] of cases) {
    kinds.add(error.kind);
    assert.deepEqual(errorEnvelope('HELP', error), { status, body });
    assert.equal(error.status, status);
  }
  assert.deepEqual([...kinds].sort(), Object.keys(ERROR_KINDS).sort(), 'every kind in the catalogue is covered');
});
