// float4 text output as PostgreSQL prints `real` values (shortest text that reads back as the same
// float4; exponent form below 1e-4 and from 1e6 up, e.g. 1e-20, 0.057308756, 1.234567e+06).

const f = Math.fround;

/** The shortest decimal digits (and exponent) that round back to the float4 `x` (x > 0, finite). */
function shortestDigits(x: number): { digits: string; exp: number } {
  for (let p = 1; p <= 9; p++) {
    const s = x.toExponential(p - 1);
    const candidates = [s];
    // the closest p-digit decimal may miss on the narrow side of a power of two while a neighbour fits
    const [mant, e] = s.split('e') as [string, string];
    const m = Number(mant.replace('.', ''));
    for (const alt of [m - 1, m + 1]) {
      const ds = String(alt);
      if (ds.length !== p) continue;
      candidates.push(`${ds[0]}${p > 1 ? '.' + ds.slice(1) : ''}e${e}`);
    }
    let best: string | undefined;
    let bestErr = Infinity;
    for (const c of candidates) {
      const v = Number(c);
      if (f(v) !== x) continue;
      const err = Math.abs(v - x);
      if (err < bestErr) { best = c; bestErr = err; }
    }
    if (best !== undefined) {
      const [bm, be] = best.split('e') as [string, string];
      return { digits: bm.replace('.', '').replace(/0+$/, '') || '0', exp: Number(be) };
    }
  }
  const s = x.toExponential(8);
  const [bm, be] = s.split('e') as [string, string];
  return { digits: bm.replace('.', '').replace(/0+$/, ''), exp: Number(be) };
}

export function formatFloat4(value: number): string {
  const x = f(value);
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
