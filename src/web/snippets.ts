// "Use this in code": the exact API call behind the current view, as a URL and as curl, Python, R and JavaScript,
// built from the view's own parameters (CKAN's Data API box shows generic examples that ignore the view).

export interface Snippet {
  language: string;
  label: string;
  code: string;
}

/** A POSIX shell single-quoted word. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A string literal valid in Python, R and JavaScript alike (JSON's escapes are accepted by all three). */
function literal(text: string): string {
  return JSON.stringify(text);
}

export function apiSnippets(base: string, params: URLSearchParams): Snippet[] {
  const url = `${base}?${params.toString()}`;
  const entries = [...params];
  const pythonParams = entries.map(([k, v]) => `    ${literal(k)}: ${literal(v)},`).join('\n');
  const rQuery = entries
    .map(([k, v]) => `  ${/^[A-Za-z][A-Za-z0-9_.]*$/.test(k) ? k : `\`${k}\``} = ${literal(v)}`)
    .join(',\n');
  return [
    { language: 'shell', label: 'curl', code: `curl ${shellQuote(url)}` },
    {
      language: 'python',
      label: 'Python',
      code: `import requests\n\nresponse = requests.get(\n    ${literal(base)},\n    params={\n${pythonParams}\n    },\n)\nresult = response.json()["result"]\nrecords = result["records"]`,
    },
    {
      language: 'r',
      label: 'R',
      code: `library(httr)\nlibrary(jsonlite)\n\nresponse <- GET(\n  ${literal(base)},\n  query = list(\n${rQuery}\n  )\n)\nresult <- fromJSON(content(response, as = "text", encoding = "UTF-8"))$result\nrecords <- result$records`,
    },
    {
      language: 'javascript',
      label: 'JavaScript',
      code: `const response = await fetch(${literal(url)});\nconst { result } = await response.json();\nconst records = result.records;`,
    },
  ];
}
