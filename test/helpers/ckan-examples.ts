// CKAN's own recorded answers (the reference examples): the requests they were made with, for tests that replay them.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { EXAMPLES_DIR } from './service.js';

export interface ExampleCase {
  slug: string;
  method: 'GET' | 'POST';
  url: string;
  request_body: string | null;
  request_content_type: string | null;
  status: number;
  content_type: string;
}

export function ckanExampleCases(): ExampleCase[] {
  return (JSON.parse(readFileSync(path.join(EXAMPLES_DIR, 'index.json'), 'utf8')) as { cases: ExampleCase[] }).cases;
}
