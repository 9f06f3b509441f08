// Renders an action's documentation in the layout of CKAN's docstrings (what help_show returns there),
// from the same parameter tables the validator uses, so the two cannot disagree.

import type { ParamSpec } from '../query/params.js';
import type { Action } from './types.js';

export interface HelpSection {
  summary: string;
  details?: string;
  params: readonly Pick<ParamSpec, 'name' | 'type' | 'description' | 'required' | 'defaultText'>[];
  results?: string;
}

function wrap(text: string, indent: string, width = 76): string {
  const words = text.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && line.length + 1 + word.length > width - indent.length) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines.join(`\n${indent}`);
}

export function renderHelp({ summary, details, params, results }: HelpSection): string {
  const indent = '    ';
  const parts = [summary, ''];
  if (details) parts.push(indent + wrap(details, indent), '');
  for (const param of params) {
    const qualifier = param.required
      ? ''
      : param.defaultText !== undefined
        ? ` (optional, default: ${param.defaultText})`
        : ' (optional)';
    parts.push(`${indent}:param ${param.name}: ${wrap(param.description + qualifier, indent + '    ')}`);
    parts.push(`${indent}:type ${param.name}: ${param.type}`);
  }
  if (results) parts.push('', `${indent}**Results:**`, '', indent + wrap(results, indent));
  return parts.join('\n') + '\n';
}

/** An action with its documentation in parts, help_show's text to be made from them and its parameter table. */
export type DocumentedAction = Omit<Action, 'help'> & Omit<HelpSection, 'params'>;

/** The action, its help_show text documenting its own parameters. */
export function documented({ summary, details, results, ...action }: DocumentedAction): Action {
  return { ...action, help: renderHelp({ summary, details, params: action.params, results }) };
}
