// JSON as Python's `json.dumps` writes it by default: a space after `,` and `:`, and every
// character beyond ASCII escaped (`\u00e9`), so a reader is shown the same record spelled otherwise.

export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${pythonJson(k)}: ${pythonJson(v)}`)
      .join(', ')}}`;
  }
  if (typeof value === 'string')
    return JSON.stringify(value).replace(
      /[\u007f-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  return JSON.stringify(value);
}

/** A JSONL text with every line respelled by `pythonJson`. */
export function pythonJsonLines(text: string): string {
  return text
    .split('\n')
    .map((l) => (l.trim() ? pythonJson(JSON.parse(l)) : l))
    .join('\n');
}

/**
 * `n` empty objects in an array: 3 bytes a value, the densest JSON there is but for digits. Past
 * 100,000 of them, more values than a document may hold (src/readers/document.ts).
 */
export const denseJson = (n: number) => `[${'{},'.repeat(n - 1)}{}]`;
