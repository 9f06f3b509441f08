// The paging links of a datastore_search result (`_links`), built as CKAN 2.11 builds them from the request's
// path and query string, re-encoded the way Python's urlencode writes them.

export interface PageLinks {
  start: string;
  next: string;
  prev?: string;
}

// Python's quote_plus leaves only these unescaped, and writes a space as "+".
const ALL_UNRESERVED = /^[A-Za-z0-9_.~-]*$/;

/**
 * encodeURIComponent escapes the same bytes as quote_plus (UTF-8, upper-case hex) except that it leaves `!'()*`
 * alone and writes a space as %20; a lone surrogate (which has no UTF-8) becomes U+FFFD's bytes, as Python's encoder
 * would refuse it and the request's own decoding has already replaced it.
 */
function quotePlus(text: string): string {
  if (ALL_UNRESERVED.test(text)) return text;
  return encodeURIComponent(text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'))
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

function decodeComponent(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    // Python's unquote leaves malformed escapes as they are instead of failing.
    return spaced.replace(/(%[0-9A-Fa-f]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
  }
}

/**
 * Python's dict(parse_qsl(query)): blank values are dropped, and a repeated name keeps its first position
 * with its last value.
 */
export function parseQueryForLinks(rawQuery: string): Map<string, string> {
  const args = new Map<string, string>();
  for (const part of rawQuery.split('&')) {
    const eq = part.indexOf('=');
    if (eq === -1 || eq === part.length - 1) continue;
    args.set(decodeComponent(part.slice(0, eq)), decodeComponent(part.slice(eq + 1)));
  }
  return args;
}

function withQuery(path: string, args: Map<string, string>): string {
  if (args.size === 0) return path;
  return path + '?' + [...args].map(([k, v]) => `${quotePlus(k)}=${quotePlus(v)}`).join('&');
}

/**
 * `rawQuery` is the request's query string; parameters sent in a body are not represented, as in CKAN,
 * where a POSTed search gets `start` = the bare path and `next` = `?offset=…`.
 */
export function pageLinks(path: string, rawQuery: string, offset: number, limit: number): PageLinks {
  const args = parseQueryForLinks(rawQuery);
  const start = new Map(args);
  start.delete('offset');
  const next = new Map(args).set('offset', String(offset + limit));
  const links: PageLinks = { start: withQuery(path, start), next: withQuery(path, next) };
  if (offset - limit > 0) links.prev = withQuery(path, new Map(args).set('offset', String(offset - limit)));
  return links;
}
