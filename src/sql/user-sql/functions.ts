// The scalar functions of the supported subset: PostgreSQL's overload resolution for each (which argument
// types it takes, what it returns) and the SQLite expression that computes it exactly.

import { isTextSearchConfig } from '../../text-search/index.js';
import { coerce, ex, textOf, type Ex } from './typed-expression.js';
import { SqlFailure, unsupported } from './failure.js';
import { displayType, isFloatType, isIntegerType, isNumericType, isStringType, type PgType } from './pg-types.js';
import { RT } from './runtime.js';
import { SQLITE_FUNCTIONS as TS } from '../../dialect/sqlite/functions.js';

export function noSuchFunction(name: string, types: readonly PgType[]): SqlFailure {
  return new SqlFailure(`function ${name}(${types.map(displayType).join(', ')}) does not exist`);
}

/** Functions PostgreSQL has (and CKAN may allow) that the embedded store does not compute. */
export const KNOWN_UNSUPPORTED = new Set([
  'generate_series',
  'random',
  'now',
  'date_trunc',
  'date_part',
  'extract',
  'to_char',
  'to_date',
  'to_timestamp',
  'age',
  'string_agg',
  'array_agg',
  'json_agg',
  'jsonb_agg',
  'to_json',
  'to_jsonb',
  'row_to_json',
  'array_to_json',
  'regexp_replace',
  'regexp_match',
  'regexp_matches',
  'regexp_split_to_array',
  'regexp_split_to_table',
  'split_part',
  'lpad',
  'rpad',
  'repeat',
  'reverse',
  'initcap',
  'translate',
  'md5',
  'chr',
  'ascii',
  'format',
  'quote_ident',
  'quote_literal',
  'quote_nullable',
  'to_hex',
  'sqrt',
  'cbrt',
  'power',
  'exp',
  'ln',
  'log',
  'sign',
  'pi',
  'degrees',
  'radians',
  'sin',
  'cos',
  'tan',
  'acos',
  'asin',
  'atan',
  'div',
  'width_bucket',
  'factorial',
  'stddev',
  'stddev_pop',
  'stddev_samp',
  'variance',
  'var_pop',
  'var_samp',
  'bool_and',
  'bool_or',
  'every',
  'bit_and',
  'bit_or',
  'corr',
  'covar_pop',
  'covar_samp',
  'mode',
  'percentile_cont',
  'percentile_disc',
  'ts_headline',
  'phraseto_tsquery',
  'websearch_to_tsquery',
  'setweight',
  'strip',
  'ts_rank_cd',
  'num_nulls',
  'num_nonnulls',
  'make_date',
  'make_timestamp',
  'make_time',
  'make_interval',
  'isfinite',
  'justify_days',
  'justify_hours',
  'justify_interval',
  'clock_timestamp',
  'statement_timestamp',
  'transaction_timestamp',
  'string_to_array',
  'array_to_string',
  'unnest',
  'cardinality',
  'array_length',
  'encode',
  'decode',
  'convert',
  'convert_from',
  'convert_to',
  'to_ascii',
  'overlay',
  'timezone',
  'scale',
  'octet_length',
  'bit_length',
  'similar_to_escape',
  'normalize',
  'is_normalized',
  'collation for',
  'xmlagg',
  'xmlcomment',
  'xmlconcat',
  'xpath',
  'xpath_exists',
  'json_build_object',
  'json_build_array',
  'jsonb_build_object',
  'jsonb_build_array',
]);

/** A text argument: text, varchar, char(n) or an untyped literal (read as text). Null if the type does not fit. */
function asText(e: Ex): Ex | null {
  if (e.type === 'unknown') return coerce(e, 'text');
  if (isStringType(e.type)) return e;
  return null;
}

/** An int4 parameter: smaller integers and untyped literals convert; bigint and numeric do not (implicitly). */
function asInt4(e: Ex): Ex | null {
  if (e.type === 'int4') return e;
  if (e.type === 'int2' || e.type === 'unknown') return coerce(e, 'int4');
  return null;
}

function requireArgs(name: string, args: readonly Ex[], min: number, max: number): void {
  if (args.length < min || args.length > max)
    throw noSuchFunction(
      name,
      args.map((a) => a.type),
    );
}

function textArgs(name: string, args: readonly Ex[]): Ex[] {
  const out = args.map(asText);
  if (out.some((a) => a === null))
    throw noSuchFunction(
      name,
      args.map((a) => a.type),
    );
  return out as Ex[];
}

/** Functions with a float8 and a numeric version: numeric stays numeric, everything else (ints too) goes float8. */
function numericOrFloat(name: string, args: readonly Ex[]): Ex {
  const a = args[0]!;
  if (a.type === 'numeric') return a;
  if (isNumericType(a.type) || a.type === 'unknown') return coerce(a, 'float8');
  throw noSuchFunction(
    name,
    args.map((x) => x.type),
  );
}

function textSearchConfig(e: Ex): string {
  if (e.konst?.kind !== 'unknown' && !(e.konst?.kind === 'value' && isStringType(e.type))) {
    throw unsupported('a text-search configuration that is not a constant');
  }
  const raw = e.konst.kind === 'unknown' ? e.konst.text : String(e.konst.value);
  const name = raw.replace(/^pg_catalog\./, '').toLowerCase();
  if (!isTextSearchConfig(name)) throw new SqlFailure(`text search configuration "${raw}" does not exist`);
  return name;
}

/** Calls of the subset's scalar functions; `syntax` marks SQL-standard forms (SUBSTRING(… FROM …), TRIM(…)). */
export function callScalarFunction(name: string, args: Ex[], syntax: boolean, defaultConfig: string): Ex {
  const types = args.map((a) => a.type);
  switch (name) {
    case 'lower':
    case 'upper': {
      requireArgs(name, args, 1, 1);
      const [a] = textArgs(name, args) as [Ex];
      return ex(`${name === 'lower' ? RT.lower : RT.upper}(${textOf(a)})`, 'text', [a]);
    }
    case 'length':
    case 'char_length':
    case 'character_length': {
      requireArgs(name, args, 1, 1);
      const [a] = textArgs(name, args) as [Ex];
      return ex(`length(${a.type === 'bpchar' ? `rtrim(${a.sql}, ' ')` : a.sql})`, 'int4', [a]);
    }
    case 'btrim':
    case 'ltrim':
    case 'rtrim': {
      // TRIM([BOTH|LEADING|TRAILING] [chars] FROM s) arrives from the parser as btrim/ltrim/rtrim(s[, chars]).
      requireArgs(name, args, 1, 2);
      const t = textArgs(name, args);
      const fn = name === 'ltrim' ? 'ltrim' : name === 'rtrim' ? 'rtrim' : 'trim';
      return ex(`${fn}(${t.map((a) => textOf(a)).join(', ')})`, 'text', t);
    }
    case 'substring':
    case 'substr': {
      requireArgs(name, args, 2, 3);
      const s = asText(args[0]!);
      if (s && args.length === 2 && isStringType(args[1]!.type))
        throw unsupported('substring with a regular expression');
      const rest = args.slice(1).map(asInt4);
      if (!s || rest.some((r) => r === null)) {
        if (syntax && args.length === 3 && s && asText(args[1]!) && asText(args[2]!))
          throw unsupported('SUBSTRING … SIMILAR');
        throw noSuchFunction(name, types);
      }
      const r = rest as Ex[];
      return ex(`${RT.substr}(${[textOf(s), ...r.map((x) => x.sql)].join(', ')})`, 'text', [s, ...r]);
    }
    case 'replace': {
      requireArgs(name, args, 3, 3);
      const t = textArgs(name, args);
      return ex(`replace(${t.map((a) => textOf(a)).join(', ')})`, 'text', t);
    }
    case 'position':
    case 'strpos': {
      // position(substring IN string) arrives as (string, substring), like strpos.
      requireArgs(name, args, 2, 2);
      const [s, sub] = textArgs(name, args) as [Ex, Ex];
      return ex(`instr(${textOf(s)}, ${textOf(sub)})`, 'int4', [s, sub]);
    }
    case 'left':
    case 'right': {
      requireArgs(name, args, 2, 2);
      const s = asText(args[0]!);
      const n = asInt4(args[1]!);
      if (!s || !n) throw noSuchFunction(name, types);
      return ex(`${name === 'left' ? RT.left : RT.right}(${textOf(s)}, ${n.sql})`, 'text', [s, n]);
    }
    case 'concat':
    case 'concat_ws': {
      if (args.length === 0) throw noSuchFunction(name, types);
      // Each argument as its output function writes it (booleans t/f, char(n) padded); NULLs are skipped.
      const parts = args.map((a, i) => {
        if (name === 'concat_ws' && i === 0) {
          const sep = asText(a);
          if (!sep) throw noSuchFunction(name, types);
          return textOf(sep);
        }
        if (a.type === 'unknown' || a.type === 'bpchar') return a.sql;
        return textOf(a, 'letters');
      });
      return ex(`${name}(${parts.join(', ')})`, 'text', args);
    }
    case 'abs': {
      requireArgs(name, args, 1, 1);
      const a = args[0]!;
      if (a.type === 'unknown') return ex(`abs(${coerce(a, 'float8').sql})`, 'float8', [a]);
      if (isIntegerType(a.type))
        return ex(
          `CAST(${RT.intCheck}(abs(${a.sql}), ${a.type === 'int2' ? 16 : a.type === 'int4' ? 32 : 64}) AS INTEGER)`,
          a.type,
          [a],
        );
      if (a.type === 'numeric') {
        return a.native
          ? { ...ex(`abs(${a.sql})`, 'numeric', [a]), native: true }
          : ex(`${RT.numAbs}(${a.sql})`, 'numeric', [a]);
      }
      if (isFloatType(a.type)) return ex(`abs(${a.sql})`, a.type, [a]);
      throw noSuchFunction(name, types);
    }
    case 'round':
    case 'trunc': {
      requireArgs(name, args, 1, 2);
      if (args.length === 2) {
        const a = args[0]!;
        const x =
          a.type === 'numeric' ? a : isIntegerType(a.type) || a.type === 'unknown' ? coerce(a, 'numeric') : null;
        const s = asInt4(args[1]!);
        if (!x || !s) throw noSuchFunction(name, types);
        return ex(`${name === 'round' ? RT.numRound : RT.numTrunc}(${x.sql}, ${s.sql})`, 'numeric', [x, s]);
      }
      const x = numericOrFloat(name, args);
      if (x.type === 'numeric')
        return ex(`${name === 'round' ? RT.numRound : RT.numTrunc}(${x.sql}, 0)`, 'numeric', [x]);
      return ex(name === 'round' ? `${RT.floatRound}(${x.sql})` : `CAST(trunc(${x.sql}) AS REAL)`, 'float8', [x]);
    }
    case 'ceil':
    case 'ceiling':
    case 'floor': {
      requireArgs(name, args, 1, 1);
      const x = numericOrFloat(name, args);
      const down = name === 'floor';
      if (x.type === 'numeric') return ex(`${down ? RT.numFloor : RT.numCeil}(${x.sql})`, 'numeric', [x]);
      return ex(`CAST(${down ? 'floor' : 'ceil'}(${x.sql}) AS REAL)`, 'float8', [x]);
    }
    case 'mod': {
      requireArgs(name, args, 2, 2);
      const [a, b] = args as [Ex, Ex];
      const numeric = a.type === 'numeric' || b.type === 'numeric';
      if (numeric) {
        const x = isIntegerType(a.type) || a.type === 'numeric' || a.type === 'unknown' ? coerce(a, 'numeric') : null;
        const y = isIntegerType(b.type) || b.type === 'numeric' || b.type === 'unknown' ? coerce(b, 'numeric') : null;
        if (!x || !y) throw noSuchFunction(name, types);
        return ex(`${RT.numMod}(${x.sql}, ${y.sql})`, 'numeric', [x, y]);
      }
      const ints = [a, b].map((e) => (isIntegerType(e.type) ? e : e.type === 'unknown' ? coerce(e, 'int4') : null));
      if (ints.some((e) => e === null)) throw noSuchFunction(name, types);
      const [x, y] = ints as [Ex, Ex];
      const type: PgType =
        x.type === 'int8' || y.type === 'int8' ? 'int8' : x.type === 'int4' || y.type === 'int4' ? 'int4' : 'int2';
      return ex(`CAST(${RT.intMod}(${x.sql}, ${y.sql}) AS INTEGER)`, type, [x, y]);
    }
    case 'to_tsvector':
    case 'to_tsquery':
    case 'plainto_tsquery': {
      requireArgs(name, args, 1, 2);
      const config = args.length === 2 ? textSearchConfig(args[0]!) : defaultConfig;
      const text = asText(args[args.length - 1]!);
      if (!text) throw noSuchFunction(name, types);
      const fn = name === 'to_tsvector' ? TS.toTsvector : name === 'to_tsquery' ? TS.toTsquery : TS.plainToTsquery;
      return ex(`${fn}('${config}', ${textOf(text)})`, name === 'to_tsvector' ? 'tsvector' : 'tsquery', [text]);
    }
    case 'ts_rank': {
      requireArgs(name, args, 2, 3);
      const v = args[0]!;
      const q = args[1]!.type === 'unknown' ? coerce(args[1]!, 'tsquery') : args[1]!;
      const n = args.length === 3 ? asInt4(args[2]!) : null;
      if (v.type !== 'tsvector' || q.type !== 'tsquery' || (args.length === 3 && !n)) throw noSuchFunction(name, types);
      return ex(`${TS.tsRank}(${v.sql}, ${q.sql}, ${n ? n.sql : 0})`, 'float4', [v, q, ...(n ? [n] : [])]);
    }
    default:
      if (KNOWN_UNSUPPORTED.has(name)) throw unsupported(`function ${name}`);
      throw noSuchFunction(name, types);
  }
}
