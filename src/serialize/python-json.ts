// JSON and repr text exactly as CKAN's Python produces them, so our envelopes are byte-compatible with CKAN's.
// CKAN serialises envelopes with simplejson defaults (", " and ": " separators, ASCII-only output) and splices
// record pages in verbatim; RawJson marks such pre-serialised fragments.

/** A fragment of already-serialised JSON, written as is. */
export class RawJson {
  constructor(readonly text: string) {}
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

// Python's ensure_ascii escapes everything outside the printable ASCII range, DEL included.
const NEEDS_ASCII_ESCAPE = /["\\\u0000-\u001f\u007f-\uffff]/g;
/** The same test without the global flag (which would make `test` stateful): most strings need no escaping. */
const HAS_ASCII_ESCAPE = /["\\\u0000-\u001f\u007f-\uffff]/;

function escapeAsciiChar(ch: string): string {
  const short = SHORT_ESCAPES[ch];
  if (short !== undefined) return short;
  return '\\u' + ch.charCodeAt(0).toString(16).padStart(4, '0');
}

/** A JSON string literal with every non-ASCII character escaped, as Python's json.dumps writes it. */
export function asciiJsonString(text: string): string {
  if (!HAS_ASCII_ESCAPE.test(text)) return '"' + text + '"';
  return '"' + text.replace(NEEDS_ASCII_ESCAPE, escapeAsciiChar) + '"';
}

/** A JSON number as Python prints it. */
export function pythonNumber(value: number): string {
  if (!Number.isFinite(value)) {
    // simplejson writes these non-standard tokens; they only arise from corrupt data.
    return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  }
  // JavaScript's shortest round-trip digits match Python's repr for every float both can hold.
  return String(value);
}

/**
 * Python's repr() of a float: shortest round-trip digits like JavaScript, but a whole number keeps ".0" and the
 * exponent form holds two digits at least and starts at 1e16 ("1e+16", "1e-07").
 */
export function pythonFloatText(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  const abs = Math.abs(value);
  if (abs >= 1e16 || (abs !== 0 && abs < 1e-4)) {
    const [mantissa, exponent] = value.toExponential().split('e') as [string, string];
    const sign = exponent.startsWith('-') ? '-' : '+';
    return `${mantissa}e${sign}${exponent.replace(/^[+-]/, '').padStart(2, '0')}`;
  }
  if (Number.isInteger(value)) return (Object.is(value, -0) ? '-0' : String(value)) + '.0';
  return String(value);
}

/** The text of values that are shared and never change (a resource's field list), made once. */
const fixed = new WeakMap<object, string>();

/**
 * Freezes `value` and keeps its serialisation: pyJsonDumps writes it from that text from now on. For values many
 * answers share, such as a resource's `fields`.
 */
export function fixedJson<T extends object>(value: T): Readonly<T> {
  const text = pyJsonDumps(value);
  fixed.set(value, text);
  return Object.freeze(value);
}

/** Serialises a value like Python's simplejson.dumps with default settings; RawJson fragments pass through. */
export function pyJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof RawJson) return value.text;
  switch (typeof value) {
    case 'string':
      return asciiJsonString(value);
    case 'number':
      return pythonNumber(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'object': {
      const known = fixed.get(value as object);
      if (known !== undefined) return known;
      if (Array.isArray(value)) {
        if (value.length === 0) return '[]';
        let out = '[' + pyJsonDumps(value[0]);
        for (let i = 1; i < value.length; i++) out += ', ' + pyJsonDumps(value[i]);
        return out + ']';
      }
      let out = '';
      for (const key of Object.keys(value as object)) {
        const item = (value as Record<string, unknown>)[key];
        if (item === undefined) continue;
        out += (out === '' ? '{' : ', ') + asciiJsonString(key) + ': ' + pyJsonDumps(item);
      }
      return out === '' ? '{}' : out + '}';
    }
    default:
      return 'null';
  }
}

function pythonStringRepr(text: string): string {
  // Python prefers single quotes and switches to double quotes only when that avoids escaping.
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    if (ch === quote || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch < ' ' || ch === '\u007f') out += '\\x' + ch.charCodeAt(0).toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + quote;
}

/** Python's repr() of a JSON-like value; CKAN quotes it in some validation messages. */
export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'string') return pythonStringRepr(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pythonNumber(value);
  if (Array.isArray(value)) return '[' + value.map(pythonRepr).join(', ') + ']';
  if (typeof value === 'object') {
    const parts = Object.entries(value as Record<string, unknown>).map(
      ([k, v]) => `${pythonStringRepr(k)}: ${pythonRepr(v)}`,
    );
    return '{' + parts.join(', ') + '}';
  }
  return String(value);
}

/** Python's str(): how CKAN turns a filter value into text before comparing it with a text column. */
export function pythonStr(value: unknown): string {
  if (typeof value === 'string') return value;
  return pythonRepr(value);
}
