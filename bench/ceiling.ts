// The ceiling: a bare node:http server that answers each recorded URL with the service's own recorded bytes and
// does nothing else. Its requests/s is what one Node process on this machine can serve at all, the yardstick for the
// service's ratios. Run as its own process: node dist/bench/ceiling.js --recording FILE --port P

import http from 'node:http';
import { parseArgs } from 'node:util';
import { readRecording } from './recording.js';

const { values } = parseArgs({
  options: {
    recording: { type: 'string' },
    port: { type: 'string' },
  },
});
if (values.recording === undefined || values.port === undefined) {
  console.error('usage: node dist/bench/ceiling.js --recording FILE --port P');
  process.exit(2);
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

// Headers are built once per URL, so a request costs a map lookup and a write: the least a server can do.
const answers = new Map<string, Answer>();
for (const r of readRecording(values.recording)) {
  const headers: Record<string, string> = { 'content-type': r.contentType, 'content-length': String(r.body.length) };
  if (r.cacheControl !== null) headers['cache-control'] = r.cacheControl;
  answers.set(r.path, { status: r.status, headers, body: r.body });
}
const missing: Answer = {
  status: 404,
  headers: { 'content-type': 'text/plain', 'content-length': '14' },
  body: Buffer.from('not recorded\r\n'),
};
// The readiness probe of the harness.
answers.set('/__ceiling_ready', {
  status: 200,
  headers: { 'content-type': 'text/plain', 'content-length': '2' },
  body: Buffer.from('ok'),
});

const server = http.createServer((req, res) => {
  const answer = answers.get(req.url ?? '') ?? missing;
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
});
// As long as the service's (Fastify's default), so idle keep-alive connections behave alike.
server.keepAliveTimeout = 72_000;
server.listen(Number(values.port), '127.0.0.1');

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
