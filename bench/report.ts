// The benchmarks' result table: one row a figure, with its target and whether it was met; and the
// token totals that differ from the generator's, the only failure.

import { diffTotals, grandTotal, type Totals } from './totals.js';

const rows: [figure: string, value: string, target: string, result: string][] = [];

export function row(figure: string, value: string, target = '', pass?: boolean): void {
  rows.push([figure, value, target, pass === undefined ? '' : pass ? 'pass' : 'FAIL']);
}

export const sec = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
export const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export function printTable(footer: string): void {
  const head: [string, string, string, string] = ['figure', 'value', 'target', 'result'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  process.stdout.write(
    `\n${line(head)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${rows.map(line).join('\n')}\n`,
  );
  process.stdout.write(`\n${footer}\n`);
}

/** Token totals that differed from what the generator wrote, as text. */
export const mismatches: string[] = [];

/** Checks runs' token totals against the generator's (a row, and a mismatch for each difference). */
export function check(what: string, expected: Totals, ...runs: Totals[]): void {
  const diff = [...new Set(runs.flatMap((got) => diffTotals(expected, got)))];
  mismatches.push(...diff.map((d) => `${what}: ${d}`));
  const value =
    diff.length === 0 ? `equal (${grandTotal(expected).toLocaleString('en')} tokens)` : `${diff.length} differ`;
  row(`totals: ${what}`, value, 'exact', diff.length === 0);
}

/** Prints the differences (if any) and sets the exit code. */
export function finishRun(): void {
  if (mismatches.length > 0) process.stderr.write(`\ntoken totals differ:\n  ${mismatches.join('\n  ')}\n`);
  process.exitCode = mismatches.length > 0 ? 1 : 0;
}
