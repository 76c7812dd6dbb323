// Caps on the values of the `model` and `tool` labels, per harness, as `project` is capped: a
// transcript naming 20,000 models or MCP servers must not make 140,000 series. Values past the cap
// fold into `other`; the folds are counted, so that a cap too low shows. And a cap on every label
// value's length: a 200 KB folder name or a 100 KB model name must not make a 68 MB /metrics.

import { createHash } from 'node:crypto';
import { USAGE_WINDOWS } from './vocabulary.js';

/** The label value that values past a cap fold into. */
export const OTHER = 'other';

/** Label values longer than this (in UTF-16 code units) are cut (`boundLabel`). */
export const MAX_LABEL_LENGTH = 128;
const HASH_LENGTH = 8;

/** The first `length` hex digits of a value's SHA-256: a name for it that does not say it (a folder, a path). */
export function shortHash(value: string, length: number): string {
  return createHash('sha256').update(value).digest('hex').slice(0, length);
}

/**
 * A label value at most MAX_LABEL_LENGTH long: a longer one is cut and ends in `~` and a short
 * hash of the whole value, so that two long values sharing their beginning stay two series.
 */
export function boundLabel(value: string): string {
  if (value.length <= MAX_LABEL_LENGTH) return value;
  let cut = MAX_LABEL_LENGTH - HASH_LENGTH - 1;
  // Never half a surrogate pair: that is no character, and no valid UTF-8.
  const c = value.charCodeAt(cut - 1);
  if (c >= 0xd800 && c <= 0xdbff) cut--;
  return `${value.slice(0, cut)}~${shortHash(value, HASH_LENGTH)}`;
}

export class LabelCap {
  private readonly admitted = new Map<string, Set<string>>();
  /** Values folded into `other`, per harness (counted per record). */
  readonly folds = new Map<string, number>();

  /** `known`: [harness, value] pairs already exported (they keep their place across restarts). */
  constructor(
    private readonly max: number,
    known: Iterable<[string, string]> = [],
  ) {
    for (const [harness, value] of known) if (value !== OTHER) this.values(harness).add(value);
  }

  /** The label value of `name` for a harness: itself (its length bounded), or `other` once the cap is reached. */
  label(harness: string, name: string): string {
    const value = boundLabel(name);
    const values = this.values(harness);
    if (values.has(value)) return value;
    if (values.size < this.max) {
      values.add(value);
      return value;
    }
    this.folds.set(harness, (this.folds.get(harness) ?? 0) + 1);
    return OTHER;
  }

  private values(harness: string): Set<string> {
    let v = this.admitted.get(harness);
    if (!v) this.admitted.set(harness, (v = new Set()));
    return v;
  }
}

const WINDOWS = new Set<string>(USAGE_WINDOWS);

/**
 * The `window` label of a usage limit as a harness names it: one of USAGE_WINDOWS, else `other`
 * (Codex's window lengths and Copilot's quota names are written by the harness: 2,000 of them
 * must not make 4,000 series).
 */
export function usageWindow(window: string): string {
  return WINDOWS.has(window) ? window : OTHER;
}
