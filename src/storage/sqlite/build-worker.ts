// The writing thread of an embedded-store load: it owns the database being built and runs every statement on it, and
// encodes the records it is sent (./row-encoder.ts), so that this work runs beside the reading thread's parsing.

import { parentPort, workerData } from 'node:worker_threads';
import {
  unpackRows,
  type BuildStart,
  type FromWriter,
  type ResourceShape,
  type RowFacts,
  type RowWriter,
  type ToWriter,
} from './build-protocol.js';
import type { LoadBase } from '../load-target.js';
import { SqliteDatabaseBuilder } from './builder.js';
import { SqliteRowEncoder } from './row-encoder.js';

const port = parentPort!;
const start = workerData as BuildStart;
const builder = new SqliteDatabaseBuilder(start.finalPath, start.fullTextLanguage, start.base);

/** The resource whose records are arriving: their encoder, its base facts, and how its fill ends. */
let receiving: {
  encoder: SqliteRowEncoder;
  base: LoadBase;
  end: (facts: RowFacts) => void;
  fail: (err: Error) => void;
} | null = null;

function reply(message: FromWriter): void {
  port.postMessage(message);
}

function answer(seq: number, work: () => unknown): void {
  Promise.resolve()
    .then(work)
    .then(
      (value) => reply({ kind: 'done', seq, value: value ?? null }),
      (err: unknown) => reply({ kind: 'error', seq, message: err instanceof Error ? err.message : String(err) }),
    );
}

/** The fill of a load or patch: records until the reading side says it is done, or that it failed. */
function receiver(resource: ResourceShape, base: LoadBase) {
  return (write: RowWriter): Promise<RowFacts> =>
    new Promise((end, fail) => {
      receiving = { encoder: new SqliteRowEncoder(resource.fields, start.fullTextLanguage, write), base, end, fail };
    });
}

/** Runs `step` on the records arriving; a failure ends the fill (the rest of its records are then dropped). */
function withReceiving(step: (current: NonNullable<typeof receiving>) => void): void {
  const current = receiving;
  if (!current) return;
  try {
    step(current);
  } catch (err) {
    receiving = null;
    current.fail(err as Error);
  }
}

port.on('message', (message: ToWriter) => {
  switch (message.kind) {
    case 'load':
      answer(message.seq, () =>
        builder.loadResource(message.resource, message.base, receiver(message.resource, message.base)),
      );
      break;
    case 'patch':
      answer(message.seq, () =>
        builder.patchResource(
          message.resource,
          message.base,
          message.previous,
          message.ranges,
          receiver(message.resource, message.base),
        ),
      );
      break;
    case 'keep':
      answer(message.seq, () => builder.keepResource(message.resource, message.record));
      break;
    case 'index':
      answer(message.seq, () => builder.addIndexes(message.resource, message.record, message.specs));
      break;
    case 'commit':
      answer(message.seq, () => builder.commit(message.publication));
      break;
    case 'abort':
      answer(message.seq, () => builder.abort());
      break;
    case 'rows':
      withReceiving(({ encoder }) => {
        const { ids, rows, documents } = unpackRows(message.packed);
        // The encoder's batches are written as they fill (its writer is synchronous), so there is nothing to await.
        for (let i = 0; i < ids.length; i++) void encoder.insert(rows[i]!, ids[i] ?? undefined, documents?.[i]);
      });
      reply({ kind: 'written' });
      break;
    case 'end':
      withReceiving(({ encoder, base, end }) => {
        void encoder.flush();
        // The builder reads its base once the fill is done: what the reading side completed meanwhile is in it.
        Object.assign(base, message.base);
        receiving = null;
        end(encoder.facts());
      });
      break;
    case 'fail':
      receiving?.fail(new Error(message.message));
      receiving = null;
      break;
  }
});
