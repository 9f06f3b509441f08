// Which API path a request names: CKAN's action routes (`/api/3/action/<name>`, `/api/action/<name>`, each also under
// a `/<locale>` prefix), dumps, the API version, its OpenAPI description and the health check. Path segments are
// decoded leniently, as werkzeug does: a malformed escape is a character that names nothing, never a failure.

export type ApiRoute =
  | {
      kind: 'action';
      name: string;
      /** The path without its locale prefix: what `_links` are built on. */ linkPath: string;
    }
  | { kind: 'dump'; id: string }
  | { kind: 'version' }
  | { kind: 'openapi' }
  | { kind: 'health' }
  | { kind: 'metrics' }
  | { kind: 'none'; shownPath: string };

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** Percent-decoding that never fails: invalid UTF-8 becomes U+FFFD, a stray "%" stays itself. */
export function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  const bytes: number[] = [];
  for (let i = 0; i < segment.length; i++) {
    const ch = segment.charCodeAt(i);
    if (ch === 0x25 && /^[0-9A-Fa-f]{2}$/.test(segment.slice(i + 1, i + 3))) {
      bytes.push(parseInt(segment.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (ch < 0x80) {
      bytes.push(ch);
    } else {
      bytes.push(...Buffer.from(segment[i]!, 'utf8'));
    }
  }
  return utf8.decode(Uint8Array.from(bytes));
}

const ACTION = /^(\/[^/]+)?(\/api(?:\/3)?\/action\/)([^/]*)$/;
const DUMP = /^\/datastore\/dump\/([^/]+)$/;

/** Whether a path belongs to the API (the request core answers it) rather than to the pages. */
export function isApiPath(path: string): boolean {
  return (
    path === '/api' ||
    path.startsWith('/api/') ||
    /^\/[^/]+\/api(?:\/|$)/.test(path) ||
    path.startsWith('/datastore/') ||
    path === '/healthz' ||
    path === '/metrics'
  );
}

export function routeApi(path: string): ApiRoute {
  switch (path) {
    case '/api':
    case '/api/3':
      return { kind: 'version' };
    case '/api/openapi.json':
    case '/api/3/openapi.json':
      return { kind: 'openapi' };
    case '/healthz':
      return { kind: 'health' };
    case '/metrics':
      return { kind: 'metrics' };
  }
  const action = ACTION.exec(path);
  if (action) return { kind: 'action', name: decodeSegment(action[3]!), linkPath: `${action[2]}${action[3]}` };
  const dump = DUMP.exec(path);
  if (dump) return { kind: 'dump', id: decodeSegment(dump[1]!) };
  return { kind: 'none', shownPath: path };
}
