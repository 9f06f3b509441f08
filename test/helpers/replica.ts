// A real PostgreSQL primary and its streaming replica for the tests, made from scratch in temporary folders: initdb
// for the primary, pg_basebackup -R for the replica (which then replays the primary's WAL through a replication slot),
// each on a free port of 127.0.0.1. Self-contained: the machine's own cluster and its configuration are not touched.
// Small and quick (a few MB of shared buffers, fsync off): a pair starts in a few seconds on two cores.

import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** Where Debian puts a PostgreSQL major version's programs; the newest installed one. */
function binaries(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const v of versions)
    if (existsSync(path.join(root, v, 'bin', 'pg_basebackup'))) return path.join(root, v, 'bin');
  return null;
}

/** Why a pair cannot be made here, or null when it can. */
export function replicaUnavailable(): string | null {
  return binaries() ? null : 'PostgreSQL server programs (initdb, pg_ctl, pg_basebackup) are not installed';
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** PostgreSQL refuses to run as root: as root, its programs run as the postgres user. */
async function pgRun(program: string, args: string[]): Promise<string> {
  const bin = path.join(binaries()!, program);
  const asRoot = process.getuid?.() === 0;
  const { stdout } = await run(asRoot ? 'runuser' : bin, asRoot ? ['-u', 'postgres', '--', bin, ...args] : args, {
    timeout: 60_000,
  });
  return stdout;
}

/** The postgres user's uid and gid, for the folders its server writes. */
async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const { stdout } = await run('id', ['-u', 'postgres']);
  const { stdout: group } = await run('id', ['-g', 'postgres']);
  return { uid: Number(stdout.trim()), gid: Number(group.trim()) };
}

export interface Cluster {
  port: number;
  dir: string;
  url(database?: string): string;
  /** Stops the server (fast shutdown), keeping its files. */
  stop(): Promise<void>;
  start(): Promise<void>;
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(
    sql: string,
    params?: unknown[],
    database?: string,
  ): Promise<T[]>;
}

export interface ReplicaPair {
  primary: Cluster;
  replica: Cluster;
  /** Waits until the replica has replayed everything the primary has written so far. */
  caughtUp(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const SETTINGS = (port: number, dir: string) =>
  [
    `port = ${port}`,
    `listen_addresses = '127.0.0.1'`,
    `unix_socket_directories = '${dir}'`,
    'max_connections = 60',
    'shared_buffers = 16MB',
    'fsync = off',
    'full_page_writes = off',
    'wal_level = replica',
    'max_wal_senders = 4',
    'max_replication_slots = 4',
    'hot_standby = on',
    'logging_collector = off',
  ].join('\n') + '\n';

const HBA =
  'local all all trust\nhost all all 127.0.0.1/32 trust\nlocal replication all trust\nhost replication all 127.0.0.1/32 trust\n';

function cluster(dir: string, port: number): Cluster {
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    dir,
    url,
    async stop() {
      await pgRun('pg_ctl', ['-D', dir, '-m', 'fast', '-w', 'stop']).catch(() => {});
    },
    async start() {
      await pgRun('pg_ctl', ['-D', dir, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start']);
    },
    async query(sql, params = [], database = 'postgres') {
      const client = new pg.Client({ connectionString: url(database) });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
  };
}

/** Makes and starts a primary and its streaming replica. */
export async function startReplicaPair(): Promise<ReplicaPair> {
  const base = mkdtempSync(path.join(os.tmpdir(), 'countcentre-pg-pair-'));
  chmodSync(base, 0o755);
  const ids = process.getuid?.() === 0 ? await postgresIds() : null;
  // initdb and pg_basebackup make these folders themselves, inside a folder the server's user owns.
  const primaryDir = path.join(base, 'primary');
  const replicaDir = path.join(base, 'replica');
  if (ids) chownSync(base, ids.uid, ids.gid);
  const [primaryPort, replicaPort] = [await freePort(), await freePort()];
  await pgRun('initdb', [
    '-D',
    primaryDir,
    '-U',
    'postgres',
    '--auth=trust',
    '--encoding=UTF8',
    '--locale=C.UTF-8',
    '--no-sync',
  ]);
  writeFileSync(path.join(primaryDir, 'postgresql.auto.conf'), SETTINGS(primaryPort, primaryDir));
  writeFileSync(path.join(primaryDir, 'pg_hba.conf'), HBA);
  if (ids)
    for (const file of ['postgresql.auto.conf', 'pg_hba.conf'])
      chownSync(path.join(primaryDir, file), ids.uid, ids.gid);
  const primary = cluster(primaryDir, primaryPort);
  await primary.start();
  await primary.query(`SELECT pg_create_physical_replication_slot('countcentre_test')`);
  await pgRun('pg_basebackup', [
    '-h',
    '127.0.0.1',
    '-p',
    String(primaryPort),
    '-U',
    'postgres',
    '-D',
    replicaDir,
    '-R',
    '-X',
    'stream',
    '-S',
    'countcentre_test',
    '--checkpoint=fast',
    '--no-sync',
  ]);
  // The copy carries the primary's settings; the replica gets its own port and socket folder.
  writeFileSync(
    path.join(replicaDir, 'postgresql.auto.conf'),
    SETTINGS(replicaPort, replicaDir) +
      `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres application_name=countcentre_replica'\nprimary_slot_name = 'countcentre_test'\n`,
  );
  if (ids) chownSync(path.join(replicaDir, 'postgresql.auto.conf'), ids.uid, ids.gid);
  const replica = cluster(replicaDir, replicaPort);
  await replica.start();
  const pair: ReplicaPair = {
    primary,
    replica,
    async caughtUp(timeoutMs = 20_000) {
      const [{ lsn }] = (await primary.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')) as [
        { lsn: string },
      ];
      const started = Date.now();
      for (;;) {
        const [row] = await replica
          .query<{ caught: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS caught', [lsn])
          .catch(() => [{ caught: false }]);
        if (row?.caught) return;
        if (Date.now() - started > timeoutMs)
          throw new Error(`the replica did not replay ${lsn} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      await replica.stop();
      await primary.stop();
      rmSync(base, { recursive: true, force: true });
    },
  };
  return pair;
}
