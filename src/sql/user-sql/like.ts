// PostgreSQL's LIKE patterns (`%`, `_`, an escape character, `\` by default) read once, then written as a
// SQLite GLOB pattern (case-sensitive, like PostgreSQL's LIKE; SQLite's own LIKE ignores ASCII case), or matched
// directly for patterns only known at run time.

import { SqlFailure } from './failure.js';

export type LikePart = { kind: 'any' } | { kind: 'one' } | { kind: 'text'; text: string };

export function checkEscape(escape: string): void {
  if ([...escape].length > 1) throw new SqlFailure('invalid escape string');
}

export function parseLike(pattern: string, escape: string): LikePart[] {
  checkEscape(escape);
  const parts: LikePart[] = [];
  let text = '';
  const flush = () => {
    if (text) parts.push({ kind: 'text', text });
    text = '';
  };
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (escape !== '' && c === escape) {
      if (i + 1 >= chars.length) throw new SqlFailure('LIKE pattern must not end with escape character');
      text += chars[++i]!;
    } else if (c === '%') {
      flush();
      // Consecutive %s mean the same as one.
      if (parts[parts.length - 1]?.kind !== 'any') parts.push({ kind: 'any' });
    } else if (c === '_') {
      flush();
      parts.push({ kind: 'one' });
    } else {
      text += c;
    }
  }
  flush();
  return parts;
}

/** The same pattern for SQLite's GLOB: `*`, `?`, and GLOB's own metacharacters bracketed. */
export function globPattern(parts: readonly LikePart[]): string {
  let out = '';
  for (const p of parts) {
    if (p.kind === 'any') out += '*';
    else if (p.kind === 'one') out += '?';
    else out += p.text.replace(/[*?[]/g, (c) => `[${c}]`);
  }
  return out;
}

/**
 * Matches a parsed pattern against a text by code points, without backtracking beyond the last `%` (so that
 * no pattern can make one comparison take exponential time): the classic wildcard algorithm, O(n·m).
 */
export function likeMatch(parts: readonly LikePart[], text: string): boolean {
  // Flatten into single-code-point tokens: -1 for %, -2 for _, else the code point.
  const pattern: number[] = [];
  for (const p of parts) {
    if (p.kind === 'any') pattern.push(-1);
    else if (p.kind === 'one') pattern.push(-2);
    else for (const ch of p.text) pattern.push(ch.codePointAt(0)!);
  }
  const subject: number[] = [];
  for (const ch of text) subject.push(ch.codePointAt(0)!);
  let s = 0,
    p = 0,
    starP = -1,
    starS = 0;
  while (s < subject.length) {
    const token = pattern[p];
    if (token !== undefined && token !== -1 && (token === -2 || token === subject[s])) {
      s++;
      p++;
    } else if (token === -1) {
      starP = p++;
      starS = s;
    } else if (starP >= 0) {
      p = starP + 1;
      s = ++starS;
    } else {
      return false;
    }
  }
  while (pattern[p] === -1) p++;
  return p === pattern.length;
}
