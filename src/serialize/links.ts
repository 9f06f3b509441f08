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

/**
 * `rawQuery` is the request's query string; parameters sent in a body are not represented, as in CKAN,
 * where a POSTed search gets `start` = the bare path and `next` = `?offset=…`.
 */
export function pageLinks(path: string, rawQuery: string, offset: number, limit: number): PageLinks {
  // Each parameter is re-encoded once; the links differ only in `offset`, which keeps its place (or comes last).
  const before: string[] = [];
  const after: string[] = [];
  let seenOffset = false;
  for (const [key, value] of parseQueryForLinks(rawQuery)) {
    if (key === 'offset') seenOffset = true;
    else (seenOffset ? after : before).push(`${quotePlus(key)}=${quotePlus(value)}`);
  }
  const link = (at: number | null) => {
    const parts = at === null ? [...before, ...after] : [...before, `offset=${at}`, ...after];
    return parts.length === 0 ? path : `${path}?${parts.join('&')}`;
  };
  const links: PageLinks = { start: link(null), next: link(offset + limit) };
  if (offset - limit > 0) links.prev = link(offset - limit);
  return links;
}
