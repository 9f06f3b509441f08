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
  return encodeURIComponent(
    text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'),
  )
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** Python's unquote_plus of a name or value; `exact` when nothing was left undecoded (every escape valid UTF-8). */
interface Decoded {
  raw: string;
  text: string;
  exact: boolean;
}

function decodeComponent(raw: string): Decoded {
  if (!raw.includes('%') && !raw.includes('+')) return { raw, text: raw, exact: true };
  const spaced = raw.replace(/\+/g, ' ');
  try {
    return { raw, text: decodeURIComponent(spaced), exact: true };
  } catch {
    // Python's unquote leaves malformed escapes as they are instead of failing.
    const text = spaced.replace(/(%[0-9A-Fa-f]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run;
      }
    });
    return { raw, text, exact: false };
  }
}

/** Each parameter's name and value as sent (still encoded), by parse_qsl's rules: blank values are dropped. */
function rawParameters(rawQuery: string): [string, string][] {
  const out: [string, string][] = [];
  for (const part of rawQuery.split('&')) {
    const eq = part.indexOf('=');
    if (eq === -1 || eq === part.length - 1) continue;
    out.push([part.slice(0, eq), part.slice(eq + 1)]);
  }
  return out;
}

/**
 * Python's dict(parse_qsl(query)): blank values are dropped, and a repeated name keeps its first position
 * with its last value.
 */
export function parseQueryForLinks(rawQuery: string): Map<string, string> {
  const args = new Map<string, string>();
  for (const [name, value] of rawParameters(rawQuery))
    args.set(decodeComponent(name).text, decodeComponent(value).text);
  return args;
}

/**
 * Text that quote_plus would write back exactly as it is: only characters it leaves alone, `+` for spaces, and
 * upper-case escapes of bytes it escapes (not of letters, digits, `_.~-`, nor %20). Decoded exactly (its escapes
 * valid UTF-8) and quoted again, such text comes back unchanged, so it need not be quoted again.
 */
const QUOTED_AS_PYTHON = /^(?:[A-Za-z0-9_.~+-]|%(?!20|2D|2E|3\d|4[1-9A-F]|5[0-9AF]|6[1-9A-F]|7[0-9AE])[0-9A-F]{2})*$/;

/** A parameter's name or value as quote_plus writes what it decodes to. */
function requoted(value: Decoded): string {
  return value.exact && QUOTED_AS_PYTHON.test(value.raw) ? value.raw : quotePlus(value.text);
}

/** An escape of a byte outside ASCII: text holding one may not be valid UTF-8, and must be decoded to be sure. */
const NON_ASCII_ESCAPE = /%[89A-Fa-f]/;

/**
 * A parameter's raw name or value as quote_plus writes what it decodes to. Raw text already in that form, with escapes
 * of ASCII bytes only (so it decodes exactly), is used as it is without being decoded first: most query strings are.
 */
function requotedRaw(raw: string): string {
  return QUOTED_AS_PYTHON.test(raw) && !NON_ASCII_ESCAPE.test(raw) ? raw : requoted(decodeComponent(raw));
}

/**
 * `rawQuery` is the request's query string; parameters sent in a body are not represented, as in CKAN,
 * where a POSTed search gets `start` = the bare path and `next` = `?offset=…`.
 */
export function pageLinks(path: string, rawQuery: string, offset: number, limit: number): PageLinks {
  // Each parameter is re-encoded once; the links differ only in `offset`, which keeps its place (or comes last).
  // dict(parse_qsl(query)): a repeated name keeps its first place and its last value.
  const args = new Map<string, [rawName: string, rawValue: string]>();
  for (const [rawName, rawValue] of rawParameters(rawQuery)) {
    const name = decodeComponent(rawName).text;
    const known = args.get(name);
    if (known) known[1] = rawValue;
    else args.set(name, [rawName, rawValue]);
  }
  let before = '';
  let after = '';
  let seenOffset = false;
  for (const [name, [rawName, rawValue]] of args) {
    if (name === 'offset') {
      seenOffset = true;
      continue;
    }
    const pair = `${requotedRaw(rawName)}=${requotedRaw(rawValue)}`;
    if (seenOffset) after += `&${pair}`;
    else before += `${pair}&`;
  }
  const link = (at: number | null) => {
    const query =
      at !== null ? `${before}offset=${at}${after}` : after === '' ? before.slice(0, -1) : before + after.slice(1);
    return query === '' ? path : `${path}?${query}`;
  };
  const links: PageLinks = { start: link(null), next: link(offset + limit) };
  if (offset - limit > 0) links.prev = link(offset - limit);
  return links;
}
