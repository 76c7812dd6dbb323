// Token totals per harness: what the generator knows, the baseline computes and the exporter exports.

import type { Family } from '../src/metrics/snapshot.js';

export const HARNESSES = ['claude-code', 'codex', 'opencode'] as const;
export type Harness = (typeof HARNESSES)[number];
export const TOKEN_TYPES = ['input', 'output', 'cache_read', 'cache_write'] as const;
export type Tokens = Record<(typeof TOKEN_TYPES)[number], number>;
export type Totals = Record<Harness, Tokens>;

export function zeroTokens(): Tokens {
  return { input: 0, output: 0, cache_read: 0, cache_write: 0 };
}

export function zeroTotals(): Totals {
  return { 'claude-code': zeroTokens(), codex: zeroTokens(), opencode: zeroTokens() };
}

export function addTokens(into: Tokens, t: Tokens): void {
  for (const k of TOKEN_TYPES) into[k] += t[k];
}

/** coding_agent_tokens_total summed over projects and models. */
export function totalsOf(families: Family[]): Totals {
  const totals = zeroTotals();
  const tokens = families.find((f) => f.def.name === 'coding_agent_tokens');
  for (const p of tokens?.points ?? []) {
    const h = p.labels.harness as Harness;
    const type = p.labels.token_type as keyof Tokens;
    if (totals[h] && type in totals[h]) totals[h][type] += p.value;
  }
  return totals;
}

/** The differing figures, as text; empty when equal. */
export function diffTotals(expected: Totals, got: Totals): string[] {
  return HARNESSES.flatMap((h) =>
    TOKEN_TYPES.filter((k) => expected[h][k] !== got[h][k]).map(
      (k) => `${h} ${k}: expected ${expected[h][k]}, got ${got[h][k]}`,
    ),
  );
}

export function grandTotal(t: Totals): number {
  return HARNESSES.reduce((a, h) => a + TOKEN_TYPES.reduce((b, k) => b + t[h][k], 0), 0);
}

/** coding_agent_tokens_total of an exposition's text, summed over projects and models. */
export function totalsOfText(text: string): Totals {
  const totals = zeroTotals();
  for (const m of text.matchAll(/^coding_agent_tokens_total\{([^}]*)\} (\S+)$/gm)) {
    const h = /harness="([^"]*)"/.exec(m[1]!)?.[1] as Harness;
    const type = /token_type="([^"]*)"/.exec(m[1]!)?.[1] as keyof Tokens;
    if (totals[h] && type in totals[h]) totals[h][type] += Number(m[2]);
  }
  return totals;
}
