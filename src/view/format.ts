// Numbers as every viewer shows them: `sessions`, `top`, the status line, the reports and the live
// page, which imports this same module (the build writes it to dist/web/format.js, served as
// /format.js). So it imports nothing and uses nothing of Node's.

/** A count with one decimal and a k, M or G suffix: 1234 → "1.2k". */
export function compact(n: number): string {
  const [div, unit] = n >= 1e9 ? [1e9, 'G'] : n >= 1e6 ? [1e6, 'M'] : n >= 1e3 ? [1e3, 'k'] : [1, ''];
  return `${Math.round((n * 10) / div) / 10}${unit}`;
}

/**
 * Dollars: whole cents from a cent up; below, to a hundredth of a cent, so that a cheap session is
 * neither rounded up to a cent it did not spend nor shown as a free `$0.00`.
 */
export function usd(n: number): string {
  if (n === 0 || n >= 0.01) return `$${n.toFixed(2)}`;
  return n < 0.0001 ? '<$0.0001' : `$${n.toFixed(4)}`;
}

/** A session's cost: `unpriced` where its model has no price, `none` (a terminal's `-`, the page's `–`) where the harness records no usage. */
export function costText(r: { tokens: object | null; cost_usd: number | null }, none = '-'): string {
  if (r.tokens === null) return none;
  return r.cost_usd === null ? 'unpriced' : usd(r.cost_usd);
}

/** How long `ms` is, in its largest whole unit: 45s, 12m, 3h, 2d. */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** Time left until `ms`, as a person says it: 2h30m, 3d4h, 12m. */
export function timeLeft(ms: number, now: number): string {
  const m = Math.max(0, Math.round((ms - now) / 60_000));
  if (m >= 1440) return `${Math.floor(m / 1440)}d${Math.floor((m % 1440) / 60)}h`;
  return m >= 60 ? `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m` : `${m}m`;
}
