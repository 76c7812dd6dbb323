// Caps on the values of the `model` and `tool` labels, per harness, as `project` is capped: a
// transcript naming 20,000 models or MCP servers must not make 140,000 series. Values past the cap
// fold into `other`; the folds are counted, so that a cap too low shows.

import { OTHER_PROJECT } from './project.js';

export const OTHER = OTHER_PROJECT;

export class LabelCap {
  private readonly admitted = new Map<string, Set<string>>();
  /** Values folded into `other`, per harness (counted per record). */
  readonly folds = new Map<string, number>();

  /** `known`: [harness, value] pairs already exported (they keep their place across restarts). */
  constructor(private readonly max: number, known: Iterable<[string, string]> = []) {
    for (const [harness, value] of known) if (value !== OTHER) this.values(harness).add(value);
  }

  /** The label value of `value` for a harness: itself, or `other` once the cap is reached. */
  label(harness: string, value: string): string {
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
