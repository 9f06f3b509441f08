// How values read on the pages: numbers with thousands separators, shares as percentages, signed changes, dates in
// words, and which fields hold Irish text (marked lang="ga" so screen readers pronounce them as Irish).

/**
 * Formatters by their fraction digits, each made when first used: making one is far slower than using it, and the
 * first one loads the locale's data (about 6 MB of memory), which a process that serves only the API never needs.
 */
const formatters = new Map<number, Intl.NumberFormat>();

function numberFormat(minimumFractionDigits: number, maximumFractionDigits: number): Intl.NumberFormat {
  // Both are at most 20 (Intl's limit), so one number keys the pair without making a string on every call.
  const key = minimumFractionDigits * 32 + maximumFractionDigits;
  let format = formatters.get(key);
  if (!format) {
    format = new Intl.NumberFormat('en-IE', { minimumFractionDigits, maximumFractionDigits });
    formatters.set(key, format);
  }
  return format;
}

export function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '–';
  return numberFormat(0, Number.isInteger(value) ? 0 : 6).format(value);
}

/** A 0–1 share as a percentage with one decimal: 0.2453 → "24.5%". */
export function formatShare(share: number | null | undefined, digits = 1): string {
  if (share === null || share === undefined || Number.isNaN(share)) return '–';
  return `${(share * 100).toFixed(digits)}%`;
}

/** A signed change: +3, −2, 0 (with a true minus sign, which screen readers read as "minus"). */
export function formatSigned(value: number | null | undefined, digits = 0, suffix = ''): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '–';
  const rounded = Number(value.toFixed(digits));
  const text = numberFormat(digits, digits).format(Math.abs(rounded));
  return `${rounded > 0 ? '+' : rounded < 0 ? '−' : ''}${text}${suffix}`;
}

const months = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** 2020-02-08 → "8 February 2020". */
export function formatDate(iso: string): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  if (!match) return iso;
  return `${Number(match[3])} ${months[Number(match[2]) - 1] ?? ''} ${match[1]}`;
}

/** Fields whose values are Irish: `Constituency Ainm` ("ainm" is Irish for "name"). */
export function isIrishField(fieldId: string): boolean {
  return /\bainm\b/i.test(fieldId);
}

export function isNumericType(type: string): boolean {
  return ['numeric', 'int', 'int4', 'int8', 'float8', 'float'].includes(type);
}

/**
 * Whether a field's whole numbers are labels rather than amounts, and so shown without thousands separators: a year
 * (1984, not 1,984), an id or a code, or a number naming something (Count Number, Constituency Number). Told by the
 * field's name, the same on every page of the resource (a rule by the values on a page would change from page to page).
 */
export function isLabelNumber(fieldId: string): boolean {
  return (
    /(^|[\s_-])(year|yr|id|code|number|no|num|postcode|zip)([\s_.-]|$)/i.test(fieldId) ||
    /(Id|ID|[Cc]ode|Year)$/.test(fieldId)
  );
}

/**
 * A value as a table cell shows it; null is an em dash, the empty string stays empty. Dates read as dates: a `date`
 * field, or a timestamp at midnight (a date-only column typed as a timestamp), shows the day alone (2020-02-08).
 */
export function cellText(value: unknown, type: string, fieldId = ''): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number') {
    if (type === 'float') return String(value);
    return Number.isInteger(value) && isLabelNumber(fieldId) ? String(value) : formatNumber(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'object') return JSON.stringify(value);
  const text = String(value);
  if (type === 'date') return text.slice(0, 10);
  if (type === 'timestamp') return text.replace(/^(\d{4}-\d{2}-\d{2})[T ]00:00:00(\.0+)?$/, '$1');
  return text;
}

/** Columns pages leave out: a full-text search's rank, a technical figure of the API's ordering, not of the data. */
export function isTechnicalColumn(field: { id: string; type: string }): boolean {
  return field.type === 'float' && /^rank( |$)/.test(field.id);
}

/** "1 record", "2 records". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatNumber(count)} ${count === 1 ? one : many}`;
}
