// Small helpers for reading untyped JSON records defensively.

export type Json = Record<string, unknown>;

export function obj(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0;
}

/** Milliseconds of an ISO-8601 timestamp, or undefined. */
export function time(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

const TS = Buffer.from('"timestamp":"');

/** The first `"timestamp":"…"` of a line, read from its bytes without decoding the line. */
export function lineTime(line: Buffer): number | undefined {
  const i = line.indexOf(TS);
  if (i === -1) return undefined;
  const from = i + TS.length;
  const to = line.indexOf(34, from); // closing quote
  return to === -1 || to - from > 40 ? undefined : time(line.toString('latin1', from, to));
}

/** Counts added and removed lines of patch hunk lines (`+x`, `-y`, ` context`). */
export function countPatchLines(lines: readonly unknown[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (typeof l !== 'string') continue;
    if (l.startsWith('+')) added++;
    else if (l.startsWith('-')) removed++;
  }
  return { added, removed };
}

/** Counts added and removed lines of a unified diff; file headers before the first hunk are not lines. */
export function countUnifiedDiff(diff: string): { added: number; removed: number } {
  const lines = diff.split('\n');
  const firstHunk = lines.findIndex((l) => l.startsWith('@@'));
  return countPatchLines(firstHunk === -1 ? lines : lines.slice(firstHunk).filter((l) => !l.startsWith('+++ ') && !l.startsWith('--- ')));
}

/** A marker for the raw-byte prefilter: `"type":"<value>"` as compact JSON writes it. */
export function typeMarker(value: string): Buffer {
  return Buffer.from(`"type":"${value}"`);
}
