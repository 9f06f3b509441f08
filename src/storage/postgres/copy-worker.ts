// The helper thread of a PostgreSQL load: makes the COPY lines of the batches of records it is sent
// (./copy-lines.ts), beside the thread that reads them.

import { parentPort, workerData } from 'node:worker_threads';
import { CopyLineMaker, type CopyLineShape, type CopyLinesReply, type CopyLinesRequest } from './copy-lines.js';

const maker = new CopyLineMaker(workerData as CopyLineShape);

parentPort!.on('message', ({ seq, ids, rows }: CopyLinesRequest) => {
  let reply: CopyLinesReply;
  try {
    reply = { seq, lines: maker.lines(ids, rows) };
  } catch (err) {
    reply = { seq, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(reply);
});
