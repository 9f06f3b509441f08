// Finds where a value sits in a JSON text, so that a problem found in the parsed value can name its line.
// Only used when something is wrong: a well-formed catalogue or source is parsed with JSON.parse alone.

import { parse, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';

export type JsonPath = readonly (string | number)[];

/** `datasets[1].fields[0].type`, as the catalogue's messages name places. */
export function pathText(path: JsonPath): string {
  let text = '';
  for (const segment of path)
    text += typeof segment === 'number' ? `[${segment}]` : text === '' ? segment : `.${segment}`;
  return text === '' ? '(root)' : text;
}

/** RFC 6901 pointer (`/candidates/2/counts/6`), as sources' messages and corrections name places. */
export function pointerText(path: JsonPath): string {
  return path.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** The 1-based line of the value at `path` (or of the nearest enclosing value that exists), or null. */
export function lineOf(text: string, path: JsonPath): number | null {
  const tree = parseTree(text);
  if (!tree) return null;
  // Walks down as far as the path goes; array indices may be given as numbers or as digits (a pointer's segments).
  let node: Node = tree;
  for (const segment of path) {
    let next: Node | undefined;
    if (node.type === 'array' && /^\d+$/.test(String(segment))) next = node.children?.[Number(segment)];
    else if (node.type === 'object')
      next = node.children?.find((p) => p.children?.[0]?.value === String(segment))?.children?.[1];
    if (!next) break;
    node = next;
  }
  // The key of an object member is where a reader looks first.
  return lineAndColumn(text, node.parent?.type === 'property' ? node.parent.offset : node.offset).line;
}

/** Where a text that JSON.parse rejected goes wrong: line, column (1-based) and what is wrong there. */
export function jsonSyntaxError(text: string): { line: number; column: number; problem: string } | null {
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return null;
  return { ...lineAndColumn(text, first.offset), problem: printParseErrorCode(first.error) };
}

/**
 * JSON.parse, a syntax error thrown as the caller's error: `refuse` is given what is wrong and, when it can be found,
 * where (line and column, 1-based).
 */
export function parseJsonOr(
  text: string,
  refuse: (problem: string, where: { line: number; column: number } | null) => Error,
): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const where = jsonSyntaxError(text);
    throw refuse(where?.problem ?? (err as Error).message, where);
  }
}

/** Line and column (1-based) of a character offset. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}
