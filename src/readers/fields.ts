// Small helpers for reading untyped JSON records defensively.

import { TODO_STATES } from '../session/vocabulary.js';
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
 * 0: for times, windows and limits, where anything else means none. Counts are read with `numberOf`.
 */
export function num(v: unknown): number {
  const n = numberOf(v);
  return n > 0 && Number.isFinite(n) ? n : 0;
}

/**
 * A count or an amount as written (a number, or a string of digits), 0 when absent (or `null`),
 * and NaN when present but no number (`"-5"`, `"12a"`, `true`, `{}`). Not bounded, and unlike
 * `num` a negative, fractional or infinite one (`1e400`) is kept: like NaN it is damage, which
 * the store skips and counts as `implausible_value`, where a 0 would be silently wrong. NaN
 * compares false and is falsy: a reader never gates a count on `> 0` or falls back with `||`
 * (that would drop the damage unseen), it reports it.
 */
export function numberOf(v: unknown): number {
  if (v === undefined || v === null) return 0;
  const n = typeof v === 'string' && /^\d+(\.\d+)?$/.test(v) ? Number(v) : v;
  return typeof n === 'number' ? n : Number.NaN;
}

/** Milliseconds of an ISO-8601 timestamp, or undefined. */
export function time(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
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
  return countPatchLines(
    firstHunk === -1 ? lines : lines.slice(firstHunk).filter((l) => !l.startsWith('+++ ') && !l.startsWith('--- ')),
  );
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
