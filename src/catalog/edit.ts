// Writes entries into the catalogue file the way a person would: the rest of the text is left exactly as it was
// (its formatting, order and any hand-made layout), and a new entry is rendered in the catalogue's own style, short
// objects on one line and longer ones broken, so diffs stay small and readable.

import { applyEdits, findNodeAtLocation, modify, parseTree, type Node } from 'jsonc-parser';

const WIDTH = 120;

/**
 * JSON text in the catalogue's style: a value whose one-line form fits in the width stays on one line. `indent` is the
 * indentation of the line the value starts on, `prefix` the characters before it there (a key).
 */
export function renderCatalogJson(value: unknown, indent = 0, prefix = 0): string {
  const flat = oneLine(value);
  if (indent + prefix + flat.length <= WIDTH || value === null || typeof value !== 'object') return flat;
  const pad = ' '.repeat(indent + 2);
  const close = ' '.repeat(indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => pad + renderCatalogJson(v, indent + 2)).join(',\n')}\n${close}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, v]) => `${pad}${JSON.stringify(k)}: ${renderCatalogJson(v, indent + 2, JSON.stringify(k).length + 2)}`).join(',\n')}\n${close}}`;
}

function oneLine(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(oneLine).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${oneLine(v)}`).join(', ')}}`;
}

export class CatalogEditError extends Error {}

function lineIndent(text: string, offset: number): number {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^ */.exec(text.slice(start))![0].length;
}

/** Inserts `value` as the last element of the array node, indented as its other elements are. */
function appendToArray(text: string, array: Node, value: unknown): string {
  const children = array.children ?? [];
  const last = children[children.length - 1];
  const arrayIndent = lineIndent(text, array.offset);
  const indent = last ? lineIndent(text, last.offset) : arrayIndent + 2;
  const rendered = renderCatalogJson(value, indent);
  if (!last) {
    return `${text.slice(0, array.offset)}[\n${' '.repeat(indent)}${rendered}\n${' '.repeat(arrayIndent)}]${text.slice(array.offset + array.length)}`;
  }
  const end = last.offset + last.length;
  return `${text.slice(0, end)},\n${' '.repeat(indent)}${rendered}${text.slice(end)}`;
}

function replaceNode(text: string, node: Node, value: unknown): string {
  const rendered = renderCatalogJson(value, lineIndent(text, node.offset));
  return text.slice(0, node.offset) + rendered + text.slice(node.offset + node.length);
}

function tree(text: string): Node {
  const root = parseTree(text);
  if (!root || root.type !== 'object') throw new CatalogEditError('the catalogue is not a JSON object');
  return root;
}

export interface DatasetEntry {
  name: string;
  [key: string]: unknown;
}

/** A catalogue with no datasets yet, for a first `count-centre add`. */
export const EMPTY_CATALOG = '{\n  "datasets": []\n}\n';

/**
 * The catalogue text with `resource` in the dataset named `dataset.name`: replacing the resource of the same id if
 * the dataset has one, else appended to its resources; a dataset not yet in the catalogue is appended with the
 * other keys of `dataset` and this one resource. Everything else is left as it was, byte for byte.
 */
export function withResource(
  text: string,
  dataset: DatasetEntry,
  resource: { id: string; [key: string]: unknown },
): string {
  const root = tree(text);
  const datasets = findNodeAtLocation(root, ['datasets']);
  if (!datasets || datasets.type !== 'array') throw new CatalogEditError('the catalogue has no "datasets" list');
  const position = (datasets.children ?? []).findIndex((d) => findNodeAtLocation(d, ['name'])?.value === dataset.name);
  if (position === -1) return appendToArray(text, datasets, { ...dataset, resources: [resource] });
  const node = datasets.children![position]!;
  const resources = findNodeAtLocation(node, ['resources']);
  if (!resources || resources.type !== 'array')
    throw new CatalogEditError(`dataset ${dataset.name} has no "resources" list`);
  const existing = (resources.children ?? []).find((r) => findNodeAtLocation(r, ['id'])?.value === resource.id);
  return existing ? replaceNode(text, existing, resource) : appendToArray(text, resources, resource);
}

/**
 * The catalogue text with these keys of the dataset set (added after its last key, or replaced where it has them);
 * everything else as it was.
 */
export function withDatasetKeys(text: string, name: string, keys: Record<string, unknown>): string {
  const datasets = findNodeAtLocation(tree(text), ['datasets']);
  const position = (datasets?.children ?? []).findIndex((d) => findNodeAtLocation(d, ['name'])?.value === name);
  if (position === -1) throw new CatalogEditError(`the catalogue has no dataset ${name}`);
  let edited = text;
  for (const [key, value] of Object.entries(keys)) {
    edited = applyEdits(
      edited,
      modify(edited, ['datasets', position, key], value, {
        formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' },
      }),
    );
  }
  return edited;
}

/** The id of a resource whose source is this path (or URL), so that adding the same file again updates its entry. */
export function resourceWithPath(text: string, sourcePath: string): { dataset: string; id: string } | null {
  const datasets = findNodeAtLocation(tree(text), ['datasets']);
  for (const d of datasets?.children ?? []) {
    for (const r of findNodeAtLocation(d, ['resources'])?.children ?? []) {
      if (findNodeAtLocation(r, ['source', 'path'])?.value === sourcePath) {
        return {
          dataset: String(findNodeAtLocation(d, ['name'])?.value),
          id: String(findNodeAtLocation(r, ['id'])?.value),
        };
      }
    }
  }
  return null;
}

const FORMATTING = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } } as const;

/** The catalogue text without the dataset named `name` (and its resources); the same text when it has none. */
export function withoutDataset(text: string, name: string): string {
  const datasets = findNodeAtLocation(tree(text), ['datasets']);
  const position = (datasets?.children ?? []).findIndex((d) => findNodeAtLocation(d, ['name'])?.value === name);
  if (position === -1) return text;
  return applyEdits(text, modify(text, ['datasets', position], undefined, FORMATTING));
}

/** The catalogue text with its top-level `portal` entry set (a whole portal mirrored); everything else as it was. */
export function withPortal(text: string, portal: Record<string, unknown>): string {
  return applyEdits(text, modify(text, ['portal'], portal, FORMATTING));
}
