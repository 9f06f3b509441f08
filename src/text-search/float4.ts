// float4 text output as PostgreSQL prints `real` values (shortest text that reads back as the same
// float4; exponent form below 1e-4 and from 1e6 up, e.g. 1e-20, 0.057308756, 1.234567e+06).

const f = Math.fround;

const bits = new Float32Array(1);
const ints = new Uint32Array(bits.buffer);
/** The float4 values next to x (x > 0, finite). */
function neighbours(x: number): [number, number] {
  bits[0] = x;
  const u = ints[0]!;
  ints[0] = u - 1;
  const down = bits[0]!;
  ints[0] = u + 1;
  const up = bits[0]!;
  return [u === 0 ? 0 : down, up];
}

/**
 * The shortest decimal digits (and exponent) that read back as the float4 `x` (x > 0, finite),
 * the closest such on a choice, an exact tie going to the even digit. Like PostgreSQL's Ryu
 * output, a decimal exactly halfway to a neighbouring float4 does not count as reading back.
 */
function shortestDigits(x: number): { digits: string; exp: number } {
  const [down, up] = neighbours(x);
  const lo = (x + down) / 2;
  const hi = up === Infinity ? x + (x - down) / 2 : (x + up) / 2;
  for (let p = 1; p <= 9; p++) {
    const [mant, e] = x.toExponential(p - 1).split('e') as [string, string];
    const m = Number(mant.replace('.', ''));
    let best: { digits: number; err: number } | undefined;
    for (const cand of [m - 1, m, m + 1]) {
      const ds = String(cand);
      if (ds.length !== p) continue;
      const v = Number(`${ds}e${Number(e) - (p - 1)}`);
      if (!(v > lo && v < hi)) continue;
      const err = Math.abs(v - x);
      if (!best || err < best.err || (err === best.err && cand % 2 === 0)) best = { digits: cand, err };
    }
    if (best) {
      return { digits: String(best.digits).replace(/0+$/, '') || '0', exp: Number(e) };
    }
  }
  const [bm, be] = x.toExponential(8).split('e') as [string, string];
  return { digits: bm.replace('.', '').replace(/0+$/, ''), exp: Number(be) };
}

/**
 * Texts of values printed lately: ranks repeat (a query's rank depends only on how often and where its words occur),
 * and the shortest digits take a few tries to find.
 */
const printed = new Map<number, string>();
const PRINTED_KEPT = 4096;

export function formatFloat4(value: number): string {
  const x = f(value);
  // 0 and -0 print differently but are one key of a Map.
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  let text = printed.get(x);
  if (text === undefined) {
    text = float4Text(x);
    if (printed.size >= PRINTED_KEPT) printed.clear();
    printed.set(x, text);
  }
  return text;
}

function float4Text(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const sign = x < 0 ? '-' : '';
  const { digits, exp } = shortestDigits(Math.abs(x));
  if (exp < -4 || exp >= 6) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp);
    return `${sign}${mant}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' + e : e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return sign + digits + '0'.repeat(exp + 1 - digits.length);
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}
