// JSON text from a request, parsed only when its nesting is within bounds: a request nested thousands deep would
// otherwise exhaust the stack in code that walks the value (echoing it, checking it), which is a 500, not an answer.

/** Deeper than any request needs: CKAN 2.12's filters nest ten levels, about twenty brackets. */
export const MAX_JSON_DEPTH = 64;

export class JsonTooDeep extends Error {
  constructor() {
    super(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    this.name = 'JsonTooDeep';
  }
}

/** The deepest nesting of arrays and objects in JSON text, counted outside strings; stops counting past `limit`. */
function depthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++;
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > limit) return true;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return false;
}

/** JSON.parse, refusing text nested deeper than MAX_JSON_DEPTH (JsonTooDeep); a syntax error is JSON.parse's own. */
export function parseJsonText(text: string): unknown {
  // Deeper nesting takes more brackets than a shorter text holds.
  if (text.length > MAX_JSON_DEPTH && depthExceeds(text, MAX_JSON_DEPTH)) throw new JsonTooDeep();
  return JSON.parse(text);
}
