// Small helpers for reading untyped JSON records defensively.

import { TODO_STATES } from '../metrics/catalog.js';
import type { TodoState } from '../session/types.js';

export type Json = Record<string, unknown>;

export function obj(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

/** Parses a text as JSON, or returns undefined. */
export function jsonValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Parses a text as a JSON object, or returns undefined. */
export function jsonObject(text: string): Json | undefined {
  return obj(jsonValue(text));
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/**
 * A positive number, written as a number or as a string of digits (some writers quote counts), or
 * 0. Not bounded: a count's plausibility is the store's to judge, where it is counted.
 */
export function num(v: unknown): number {
  const n = typeof v === 'string' && /^\d+(\.\d+)?$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0;
}

/** Milliseconds of an ISO-8601 timestamp, or undefined. */
export function time(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

const TS = Buffer.from('"timestamp":"');

/**
 * A line's `"timestamp":"…"`, read from its bytes without decoding the line: the first one, or
 * with `last` the last one (records that put it after a large body).
 */
function lineTime(line: Buffer, last = false): number | undefined {
  const i = last ? line.lastIndexOf(TS) : line.indexOf(TS);
  if (i === -1) return undefined;
  const from = i + TS.length;
  const to = line.indexOf(34, from); // closing quote
  return to === -1 || to - from > 40 ? undefined : time(line.toString('latin1', from, to));
}

/** Reports a line's timestamp (read from its bytes) as activity; returns it. */
export function lineActivity(line: Buffer, ev: { activity(ts: number): void }, last = false): number | undefined {
  const ts = lineTime(line, last);
  if (ts !== undefined) ev.activity(ts);
  return ts;
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

/** The number of lines of a text (a final newline ends the last line, it does not start one). */
export function lineCount(text: string): number {
  return text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** Counts added and removed lines of a unified diff; file headers before the first hunk are not lines. */
export function countUnifiedDiff(diff: string): { added: number; removed: number } {
  const lines = diff.split('\n');
  const firstHunk = lines.findIndex((l) => l.startsWith('@@'));
  return countPatchLines(firstHunk === -1 ? lines : lines.slice(firstHunk).filter((l) => !l.startsWith('+++ ') && !l.startsWith('--- ')));
}

const TYPE = Buffer.from('"type":"');

/**
 * The value of the next `"type":"…"` key at or after `from`, read from the line's bytes, and where
 * the search can go on. Records are classified this way before anything is decoded: such a key
 * cannot occur inside a JSON string value, where quotes are escaped.
 */
export function nextType(line: Buffer, from: number): { value: string; end: number } | undefined {
  const at = line.indexOf(TYPE, from);
  if (at === -1) return undefined;
  const start = at + TYPE.length;
  const end = line.indexOf(34, start);
  if (end === -1 || end - start > 64) return undefined;
  return { value: line.toString('latin1', start, end), end: end + 1 };
}

/**
 * The short string value after `marker` (a structural `"key":"`) at or after `from`, read from the
 * line's bytes: such a key cannot occur inside a JSON string value, where quotes are escaped.
 */
export function stringAfter(line: Buffer, marker: Buffer, from = 0): string | undefined {
  const at = line.indexOf(marker, from);
  if (at === -1) return undefined;
  const start = at + marker.length;
  const end = line.indexOf(34, start);
  return end === -1 || end - start > 64 ? undefined : line.toString('latin1', start, end);
}

/** The first `"type":"…"` value of a line that is one of `known`. */
export function firstTypeOf(line: Buffer, known: ReadonlySet<string>): string | undefined {
  for (let t = nextType(line, 0); t; t = nextType(line, t.end)) if (known.has(t.value)) return t.value;
  return undefined;
}

/**
 * Where the JSON value starting at `start` (an object or array) ends, scanning its bytes with
 * strings and escapes in mind; -1 if the line ends first.
 */
export function valueEnd(line: Buffer, start: number): number {
  let depth = 0;
  for (let i = start; i < line.length; i++) {
    const c = line[i];
    if (c === 34) {
      // a string: skip to its closing quote
      for (i++; i < line.length && line[i] !== 34; i++) if (line[i] === 92) i++;
    } else if (c === 91 || c === 123) depth++;
    else if ((c === 93 || c === 125) && --depth === 0) return i + 1;
  }
  return -1;
}

const TODO_STATE = new Set<string>(TODO_STATES);

/**
 * A plan's items by state, from each item's status (unknown statuses are left out; Gemini CLI's
 * `blocked` is an item still to do: pending).
 */
export function countTodos(statuses: readonly unknown[]): Partial<Record<TodoState, number>> {
  const out: Partial<Record<TodoState, number>> = {};
  for (const status of statuses) {
    const st = status === 'blocked' ? 'pending' : status;
    if (typeof st === 'string' && TODO_STATE.has(st)) out[st as TodoState] = (out[st as TodoState] ?? 0) + 1;
  }
  return out;
}

/** The plan a tool call writes whole, a list of items with a `status`; undefined when it is no list. */
export function planOf(items: unknown): Partial<Record<TodoState, number>> | undefined {
  return Array.isArray(items) ? countTodos(items.map((i) => obj(i)?.status)) : undefined;
}
